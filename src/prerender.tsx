import createEmotionServer from '@emotion/server/create-instance';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter, useRoutes } from 'react-router-dom';
import { AppProviders, createStyleCache } from './app/AppProviders';
import { createRoutes, preloadRoutes } from './app/routes';
import { configSlot, NONCE_SLOT } from '../contract/pageSlots';
import { defaultRuntimeConfig, type RuntimeConfig } from '../contract/runtimeConfig';
import { PageTitleSink } from './lib/usePageTitle';

/** The config the prerender renders with: a slot in place of every value. */
const SLOTTED_CONFIG: RuntimeConfig = { ...defaultRuntimeConfig };
for (const key of Object.keys(SLOTTED_CONFIG) as Array<keyof RuntimeConfig>) SLOTTED_CONFIG[key] = configSlot(key);

export interface RenderedPage {
  /** The markup of #root, as hydrateRoot expects it. */
  html: string;
  /** Emotion's style elements for that markup (Chakra's global CSS, then the components'), nonce slotted. */
  styles: string;
  /** The document title the page sets. */
  title: string;
}

/**
 * Renders one page of the route tree as a signed-out visitor first sees it. The tree is the one
 * `src/main.tsx` hydrates, with the static router in place of the browser's.
 */
export async function renderPage(pathname: string): Promise<RenderedPage> {
  const routes = createRoutes();
  // The server renderer cannot wait for a chunk: the page must be loaded before it renders.
  await preloadRoutes(routes, pathname);
  const AppRoutes = () => useRoutes(routes);
  const cache = createStyleCache(NONCE_SLOT);
  const emotion = createEmotionServer(cache);
  let title = '';
  const html = renderToString(
    <StrictMode>
      <PageTitleSink.Provider value={(pageTitle) => (title = pageTitle)}>
        <AppProviders config={SLOTTED_CONFIG} cache={cache}>
          <StaticRouter location={pathname}>
            <AppRoutes />
          </StaticRouter>
        </AppProviders>
      </PageTitleSink.Provider>
    </StrictMode>,
  );
  if (!title) throw new Error(`${pathname} sets no page title.`);
  return { html, styles: emotion.constructStyleTagsFromChunks(emotion.extractCriticalToChunks(html)), title };
}

/**
 * Chakra's global CSS (its tokens as CSS variables, the reset and the global styles) as style
 * elements, nonce slotted: what every page needs before its first paint, whatever it draws. The
 * pages the app draws in the browser carry it in their shell (build/prerender.ts), so the app
 * does not compute it on a phone's main thread as it starts (`providedSystem` in AppProviders).
 */
export function renderGlobalStyles(): string {
  const cache = createStyleCache(NONCE_SLOT);
  const emotion = createEmotionServer(cache);
  renderToString(
    <AppProviders config={SLOTTED_CONFIG} cache={cache}>
      {null}
    </AppProviders>,
  );
  const global = `${cache.key}-global`;
  const chunks = emotion.extractCriticalToChunks('');
  const styles = emotion.constructStyleTagsFromChunks({ ...chunks, styles: chunks.styles.filter((chunk) => chunk.key === global) });
  if (!styles.includes(`data-emotion="${global} `)) throw new Error('Rendering the providers gave no global styles: the page shells cannot carry them.');
  return styles;
}

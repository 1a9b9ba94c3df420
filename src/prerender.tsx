import createEmotionServer from '@emotion/server/create-instance';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom';
import { AppProviders, createStyleCache } from './app/AppProviders';
import { createRoutes } from './app/routes';
import { configSlot, NONCE_SLOT } from './lib/pageSlots';
import { defaultRuntimeConfig, type RuntimeConfig } from './lib/runtimeConfig';
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
  const handler = createStaticHandler(createRoutes());
  const context = await handler.query(new Request(`http://prerender.invalid${pathname}`));
  if (context instanceof Response) throw new Error(`${pathname} redirects: nothing to prerender.`);
  if (context.errors) throw new Error(`${pathname} failed to render: ${JSON.stringify(context.errors)}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  const cache = createStyleCache(NONCE_SLOT);
  const emotion = createEmotionServer(cache);
  let title = '';
  const html = renderToString(
    <StrictMode>
      <PageTitleSink.Provider value={(pageTitle) => (title = pageTitle)}>
        <AppProviders config={SLOTTED_CONFIG} cache={cache}>
          {/* No hydration data: the routes have no loaders, and its inline script would break the CSP. */}
          <StaticRouterProvider router={router} context={context} hydrate={false} />
        </AppProviders>
      </PageTitleSink.Provider>
    </StrictMode>,
  );
  if (!title) throw new Error(`${pathname} sets no page title.`);
  return { html, styles: emotion.constructStyleTagsFromChunks(emotion.extractCriticalToChunks(html)), title };
}

import createCache, { type EmotionCache, type StylisPlugin } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { ChakraProvider } from '@chakra-ui/react';
import { useEffect, useState, type ReactNode } from 'react';
import { APP_READY_ATTRIBUTE } from '../lib/pageScripts';
import { RuntimeConfigContext } from '../lib/useRuntimeConfig';
import type { RuntimeConfig } from '../../contract/runtimeConfig';
import { system } from './system';

/** The properties current Safari still reads only with its prefix. */
const WEBKIT_ONLY = new Set(['user-select', 'backdrop-filter']);

/**
 * Emotion's default prefixer writes every flex, transform and `translate` declaration three or
 * four times over (`-webkit-`, `-moz-`, `-ms-`) for browsers long gone: about a fifth of the CSS a
 * page carries inline. This one adds the `-webkit-` copy where a current browser needs it, and
 * nothing else.
 */
const webkitWhereNeeded: StylisPlugin = (element) => {
  if (element.type === 'decl' && !element.return && WEBKIT_ONLY.has(element.props as string)) {
    element.return = `-webkit-${element.value}${element.value}`;
  }
};

/**
 * Has Emotion put the rules of each render it commits into a style element of their own, instead of
 * adding them to the last one. Chakra's rules sit in cascade layers and media queries, and Chromium
 * restyles every element of the page when such a rule is added to a style sheet already in use
 * (about 45 ms for 10,000 elements, against under 2 for a plain rule), while a new style element
 * costs it only the elements the new rules can match. Each mount of a part of a page that brings
 * new styles (a section's answers, the toast region, a dialog) restyled the whole page: 60 to 75 ms
 * of a phone's main thread (Chromium at 4x CPU) each. A commit's rules are inserted during one
 * synchronous run of React's, so a new element starts with the first rule after a microtask.
 */
function insertEachCommitApart(cache: EmotionCache): EmotionCache {
  const { sheet } = cache;
  const insert = sheet.insert.bind(sheet);
  let inCommit = false;
  sheet.insert = (rule) => {
    if (!inCommit) {
      inCommit = true;
      // Emotion starts a new style element when its count of rules in the last one is zero.
      sheet.ctr = 0;
      queueMicrotask(() => {
        inCommit = false;
      });
    }
    insert(rule);
  };
  return cache;
}

/** Emotion's cache; its key names the style elements a prerendered page carries (`data-emotion="sm …"`). */
export function createStyleCache(nonce?: string): EmotionCache {
  const cache = createCache({ key: 'sm', nonce, stylisPlugins: [webkitWhereNeeded] });
  return typeof document === 'undefined' ? cache : insertEachCommitApart(cache);
}

/**
 * Chakra's system as the provider gets it. A prerendered page carries Chakra's global CSS (tokens,
 * reset and global styles) in its HTML already, and Emotion leaves those style elements in place:
 * the app then gives the provider nothing to add, and so never computes that CSS (the production
 * build makes it a value computed when first read, see build/libraryPatches.ts). A page that starts
 * empty gets it inserted as usual.
 */
function providedSystem(cacheKey: string): typeof system {
  const inPage = typeof document !== 'undefined' && document.querySelector(`style[data-emotion^="${cacheKey}-global "]`) !== null;
  return inPage ? Object.create(system, { _global: { value: [] } }) : system;
}

interface Props {
  config: RuntimeConfig;
  /** The page's CSP nonce: Emotion puts it on every style element it inserts. */
  nonce?: string;
  /** The prerender hands in its own cache, to collect the page's critical CSS from it. */
  cache?: EmotionCache;
  children: ReactNode;
}

export function AppProviders({ config, nonce, cache: givenCache, children }: Props) {
  const [cache] = useState(() => givenCache ?? createStyleCache(nonce));
  const [value] = useState(() => providedSystem(cache.key));
  // Once the first render (or hydration) is committed, the app has taken over the page (see
  // src/appPage.ts). Here rather than in a component of its own: a sibling in the tree would
  // change the ids useId gives, which must match the prerendered ones.
  useEffect(() => document.documentElement.setAttribute(APP_READY_ATTRIBUTE, ''), []);
  return (
    <CacheProvider value={cache}>
      <ChakraProvider value={value}>
        <RuntimeConfigContext.Provider value={config}>{children}</RuntimeConfigContext.Provider>
      </ChakraProvider>
    </CacheProvider>
  );
}

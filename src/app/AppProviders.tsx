import createCache, { type EmotionCache, type StylisPlugin } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { ChakraProvider } from '@chakra-ui/react';
import { useState, type ReactNode } from 'react';
import { RuntimeConfigContext } from '../lib/useRuntimeConfig';
import type { RuntimeConfig } from '../lib/runtimeConfig';
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

/** Emotion's cache; its key names the style elements a prerendered page carries (`data-emotion="sm …"`). */
export function createStyleCache(nonce?: string): EmotionCache {
  return createCache({ key: 'sm', nonce, stylisPlugins: [webkitWhereNeeded] });
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
  return (
    <CacheProvider value={cache}>
      <ChakraProvider value={system}>
        <RuntimeConfigContext.Provider value={config}>{children}</RuntimeConfigContext.Provider>
      </ChakraProvider>
    </CacheProvider>
  );
}

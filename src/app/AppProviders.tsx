import createCache, { type EmotionCache } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { ChakraProvider } from '@chakra-ui/react';
import { useState, type ReactNode } from 'react';
import { RuntimeConfigContext } from '../lib/useRuntimeConfig';
import type { RuntimeConfig } from '../lib/runtimeConfig';
import { system } from './system';

/** Emotion's cache; its key names the style elements a prerendered page carries (`data-emotion="sm …"`). */
export function createStyleCache(nonce?: string): EmotionCache {
  return createCache({ key: 'sm', nonce });
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

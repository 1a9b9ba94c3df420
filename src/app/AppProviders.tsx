import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { ChakraProvider } from '@chakra-ui/react';
import { useState, type ReactNode } from 'react';
import { RuntimeConfigContext } from '../lib/useRuntimeConfig';
import type { RuntimeConfig } from '../lib/runtimeConfig';
import { system } from './system';

interface Props {
  config: RuntimeConfig;
  /** The page's CSP nonce: Emotion puts it on every style element it inserts. */
  nonce?: string;
  children: ReactNode;
}

export function AppProviders({ config, nonce, children }: Props) {
  const [cache] = useState(() => createCache({ key: 'sm', nonce }));
  return (
    <CacheProvider value={cache}>
      <ChakraProvider value={system}>
        <RuntimeConfigContext.Provider value={config}>{children}</RuntimeConfigContext.Provider>
      </ChakraProvider>
    </CacheProvider>
  );
}

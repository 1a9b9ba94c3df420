import { createContext, useContext } from 'react';
import { defaultRuntimeConfig, type RuntimeConfig } from '../../contract/runtimeConfig';

export const RuntimeConfigContext = createContext<RuntimeConfig>(defaultRuntimeConfig);

/** Brand, mailboxes and links as the server configured them. */
export function useRuntimeConfig(): RuntimeConfig {
  return useContext(RuntimeConfigContext);
}

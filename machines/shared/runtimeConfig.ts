import { CONFIG_ELEMENT_ID, defaultRuntimeConfig, type RuntimeConfig } from '../../contract/runtimeConfig';

/** Reads the settings the server injected; a page served without them (dev server, tests) gets the defaults. */
export function readRuntimeConfig(doc: Document | undefined = globalThis.document): RuntimeConfig {
  const text = doc?.getElementById(CONFIG_ELEMENT_ID)?.textContent;
  if (!text) return defaultRuntimeConfig;
  try {
    return { ...defaultRuntimeConfig, ...(JSON.parse(text) as Partial<RuntimeConfig>) };
  } catch {
    return defaultRuntimeConfig;
  }
}

/** The nonce the server put on this page, for the styles Emotion inserts at run time (CSP). */
export function readCspNonce(doc: Document | undefined = globalThis.document): string | undefined {
  return doc?.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content || undefined;
}

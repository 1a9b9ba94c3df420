/**
 * Settings the server injects into every page it serves, so one production build runs anywhere.
 * The page carries them as JSON in `<script id="app-config" type="application/json">`.
 */
export interface RuntimeConfig {
  brandName: string;
  supportEmail: string;
  generalEmail: string;
  marketplaceUrl: string;
  spreadsheetAppUrl: string;
  /** Base URL of the API; empty means the origin that served the page. */
  apiBase: string;
}

export const defaultRuntimeConfig: RuntimeConfig = {
  brandName: 'SheetMind',
  supportEmail: 'support@sheetmind.example',
  generalEmail: 'hello@sheetmind.example',
  marketplaceUrl: 'https://workspace.google.com/marketplace',
  spreadsheetAppUrl: 'https://sheets.google.com',
  apiBase: '',
};

export const CONFIG_ELEMENT_ID = 'app-config';

/** Reads the injected settings; a page served without them (dev server, tests) gets the defaults. */
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

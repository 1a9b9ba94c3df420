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

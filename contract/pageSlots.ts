import type { RuntimeConfig } from './runtimeConfig';

/**
 * The slots of public/index.html and of the prerendered pages. The build fills the page's
 * markup, critical CSS and scripts (build/prerender.ts); the server fills the runtime config once
 * at start-up, since one build must run under any brand and mailboxes, and the CSP nonce on every
 * response (server/plugins/web.ts). The config and nonce slots are plain text that React's
 * escaping leaves as it is, so they work inside rendered text and attributes alike.
 */
export const SLOTS = {
  config: '<!--app-config-->',
  styles: '<!--app-styles-->',
  scripts: '<!--app-scripts-->',
  html: '<!--app-html-->',
} as const;

/** Where the response's CSP nonces go: the style elements', and the inline color-mode script's. */
export const NONCE_SLOT = '%%nonce%%';
export const SCRIPT_NONCE_SLOT = '%%script-nonce%%';
export const configSlot = (key: keyof RuntimeConfig) => `%%config.${key}%%`;

/**
 * The shell served at the pages with a parameter (`/invite/…`): the build's index.html with
 * Chakra's global CSS in it (relative to the web folder). A web folder without it (a test's) is
 * served its index.html there.
 */
export const PLAIN_SHELL_FILE = 'shell.html';

/** pages/index.html for /, pages/privacy.html for /privacy (relative to the web folder). */
export const prerenderedFile = (pathname: string) => `pages/${pathname === '/' ? 'index' : pathname.slice(1)}.html`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Puts each runtime config value, escaped for HTML, in place of its slot (in one pass, so a value is never read as a slot). */
export function fillConfigSlots(html: string, config: RuntimeConfig): string {
  return html.replace(/%%config\.(\w+)%%/g, (slot, key: string) => (Object.hasOwn(config, key) ? escapeHtml(config[key as keyof RuntimeConfig]) : slot));
}

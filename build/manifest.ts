import fs from 'node:fs';
import path from 'node:path';

/**
 * What the production build loads where, from webpack's chunk graph: written by the build next to
 * dist/web (not inside it, so it is never served) and read by the prerender, the bundle-size test
 * and `npm run bench:web`. Paths are relative to dist/web.
 */
export interface BuildManifest {
  /** The color-mode script, which every page runs first (inlined in production: see WebBuildPlugin). */
  boot: string;
  /** The only other script of the static public pages (src/staticPage.ts), inline in their HTML. */
  staticScript: string;
  /** The script that loads the app on the other prerendered pages (src/appPage.ts), inline too. */
  appPageScript: string;
  /** The entry point's JS, in load order: every page loads these. */
  entry: string[];
  /** The JS of the API client (machines/shared/http.ts and axios): named by the pages that call as they first draw, loaded by the others once drawn. */
  calls: string[];
  /** Each page chunk's JS (with the shared chunks it needs), by webpackChunkName. */
  chunks: Record<string, string[]>;
  /** The npm packages in each page's app scripts (entry and page chunk), and in the static script (by its entry name). */
  packages: Record<string, string[]>;
}

export const DIST_DIR = path.resolve(__dirname, '../dist');
export const WEB_DIR = path.join(DIST_DIR, 'web');
export const MANIFEST_FILE = path.join(DIST_DIR, 'web-manifest.json');
/** Marks the app page's inline script of first calls (src/firstCalls.ts), which the prerendered pages leave out. */
export const FIRST_CALLS_ATTRIBUTE = 'data-first-calls';

export function readManifest(): BuildManifest {
  if (!fs.existsSync(MANIFEST_FILE)) throw new Error(`No ${MANIFEST_FILE}: run \`npm run build\` first.`);
  return JSON.parse(fs.readFileSync(MANIFEST_FILE, 'utf8')) as BuildManifest;
}

/**
 * The app's JS for a page, in the order it must run: the page's chunk (and the shared chunks it
 * needs) before the entry, so the entry finds the page installed instead of fetching it.
 */
export function appScripts(manifest: BuildManifest, chunk: string): string[] {
  const page = manifest.chunks[chunk];
  if (!page) throw new Error(`The build has no chunk named ${chunk}.`);
  return [...page.filter((file) => !manifest.entry.includes(file)), ...manifest.entry];
}

/**
 * The JS a first visit to a page loads: the color-mode script, then the static script for a
 * static page, the app's loader and scripts for any other (and the app's scripts for a static
 * page visited with a session).
 */
export function firstLoadScripts(manifest: BuildManifest, page: { chunk: string; static: boolean }, signedIn = false): string[] {
  if (page.static) return [manifest.boot, manifest.staticScript, ...(signedIn ? appScripts(manifest, page.chunk) : [])];
  return [manifest.boot, manifest.appPageScript, ...appScripts(manifest, page.chunk)];
}

/** A script's code, checked to be safe as the content of an inline <script> element. */
export function inlinable(code: string, file: string): string {
  if (code.includes('</')) throw new Error(`${file} cannot be inlined: it holds "</".`);
  return code;
}

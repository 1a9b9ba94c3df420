/**
 * Renders the public pages to static HTML after webpack has built the SPA (the build's
 * WebBuildPlugin runs it as `node --import tsx build/prerender.ts`, with NODE_ENV=production so
 * React renders as the production bundle does). Each page is the shell index.html with the page's
 * markup in #root, Emotion's critical CSS in <head>, its title, and its scripts, written to
 * dist/web/pages/<name>.html for server/plugins/web.ts to serve. Its one script is inline (see
 * pageScript): a page that hydrates loads the app's scripts, its chunk's and the entry's, once
 * painted; a static one loads them only for a visitor with a session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { APP_PATHS, isDrawnFromEarlyCalls } from '../contract/appPaths';
import { escapeHtml, PLAIN_SHELL_FILE, prerenderedFile, SCRIPT_NONCE_SLOT, SLOTS } from '../contract/pageSlots';
import { PRERENDERED_PAGES } from '../src/app/routes';
import { renderGlobalStyles, renderPage } from '../src/prerender';
import { appScripts, FIRST_CALLS_ATTRIBUTE, inlinable, readManifest, WEB_DIR, type BuildManifest } from './manifest';

function fill(template: string, slot: string, content: string): string {
  if (!template.includes(slot)) throw new Error(`index.html has no ${slot}: the prerender cannot place its output.`);
  return template.replace(slot, () => content);
}

/** An entry script's element, as html-webpack-plugin writes it in the shell's <head>. */
const entryTag = (file: string) => `<script defer="defer" src="/${file}"></script>`;

/**
 * The shell without the entry's script elements, which html-webpack-plugin put in its <head>, nor
 * the signed-in pages' first calls (none of the prerendered pages is one).
 */
function withoutEntryScripts(shell: string, manifest: BuildManifest): string {
  const firstCalls = new RegExp(`<script [^>]*${FIRST_CALLS_ATTRIBUTE}[^>]*>[^<]*</script>`);
  if (!firstCalls.test(shell)) throw new Error('index.html has no first-calls script: the prerendered pages cannot leave it out.');
  return manifest.entry.reduce((html, file) => {
    const tag = entryTag(file);
    if (!html.includes(tag)) throw new Error(`index.html has no ${tag}: the prerendered pages cannot leave it out.`);
    return html.replace(tag, '');
  }, shell.replace(firstCalls, ''));
}

/**
 * A prerendered page's one script, inline with the response's script nonce (a file would cost a
 * request before the page is complete): src/staticPage.ts on a static page, src/appPage.ts on one
 * that hydrates. It is told the app's scripts, which it loads once the page is on screen.
 */
function pageScript(file: string, app: string[]): string {
  const code = inlinable(fs.readFileSync(path.join(WEB_DIR, file), 'utf8'), file);
  return `<script nonce="${SCRIPT_NONCE_SLOT}" data-app="${app.map((src) => `/${src}`).join(' ')}">${code}</script>`;
}

/** The pages the app draws in the browser (the signed-in ones, and the password and e-mail links): every page without a prerender or a parameter. */
export const DRAWN_PATHS = APP_PATHS.filter((pathname) => !pathname.includes(':') && !PRERENDERED_PAGES.some((page) => page.path === pathname));

/**
 * The pages the app draws in the browser (DRAWN_PATHS) are the shell, written once per page with the page's scripts named beside the entry's: its
 * chunk and, on a page that calls at once itself, the API client, as deferred scripts that run
 * before the entry, so the browser fetches them with it instead of after it has run (two more
 * round trips on a phone's network, one for the page, one for its first call). A page drawn from
 * its early calls' answers (DRAWN_FROM_EARLY_CALLS) leaves the client out: the app loads it once
 * the page is drawn. Each carries Chakra's global CSS, as the
 * prerendered pages do, so the app does not compute it as it starts (about 4.8 KiB with brotli).
 * A path with a parameter (`/invite/…`) gets the plain shell, with it too (`shell.html`).
 */
function pageShells(bareShell: string, manifest: BuildManifest): string[] {
  if (!manifest.entry.every((file) => bareShell.includes(entryTag(file)))) throw new Error('index.html lacks the entry\'s script elements: the page shells cannot name theirs.');
  const shell = fill(bareShell, SLOTS.styles, renderGlobalStyles());
  const written: string[] = [];
  for (const pathname of DRAWN_PATHS) {
    const chunk = `page-${pathname.slice(1)}`;
    if (!manifest.chunks[chunk]) throw new Error(`The build has no chunk named ${chunk} for ${pathname}.`);
    // The page's own scripts and, unless its first render needs no call but the early ones, the API
    // client's; then the entry's, which finds them installed.
    const client = isDrawnFromEarlyCalls(pathname) ? [] : manifest.calls;
    const scripts = [...new Set([...manifest.chunks[chunk], ...client])].filter((file) => !manifest.entry.includes(file)).concat(manifest.entry);
    const html = manifest.entry
      .reduce((page, file) => page.replace(entryTag(file), ''), shell)
      .replace('</head>', () => `${scripts.map(entryTag).join('')}</head>`);
    fs.writeFileSync(path.join(WEB_DIR, prerenderedFile(pathname)), html);
    written.push(pathname);
  }
  fs.writeFileSync(path.join(WEB_DIR, PLAIN_SHELL_FILE), shell);
  return written;
}

async function main(): Promise<void> {
  const manifest = readManifest();
  const shell = fs.readFileSync(path.join(WEB_DIR, 'index.html'), 'utf8');
  fs.mkdirSync(path.join(WEB_DIR, 'pages'), { recursive: true });
  for (const page of PRERENDERED_PAGES) {
    const { html, styles, title } = await renderPage(page.path);
    const script = pageScript(page.static ? manifest.staticScript : manifest.appPageScript, appScripts(manifest, page.chunk));
    let out = fill(withoutEntryScripts(shell, manifest), SLOTS.html, html);
    out = fill(out, SLOTS.styles, styles);
    out = fill(out, SLOTS.scripts, script);
    out = out.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
    fs.writeFileSync(path.join(WEB_DIR, prerenderedFile(page.path)), out);
  }
  console.log(`prerendered ${PRERENDERED_PAGES.map((page) => page.path).join(' ')}; page shells ${pageShells(shell, manifest).join(' ')}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

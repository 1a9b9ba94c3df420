/**
 * Renders the public pages to static HTML after webpack has built the SPA (the build's
 * WebBuildPlugin runs it as `node --import tsx build/prerender.ts`, with NODE_ENV=production so
 * React renders as the production bundle does). Each page is the shell index.html with the page's
 * markup in #root, Emotion's critical CSS in <head>, its title, and its scripts, written to
 * dist/web/pages/<name>.html for server/plugins/web.ts to serve. A page that hydrates loads its
 * chunk's scripts beside the entry's; a static one loads only the static script, which is told
 * the app's scripts to load for a visitor with a session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { escapeHtml, prerenderedFile, SLOTS } from '../src/lib/pageSlots';
import { PRERENDERED_PAGES } from '../src/app/routes';
import { renderPage } from '../src/prerender';
import { appScripts, readManifest, WEB_DIR, type BuildManifest } from './manifest';

function fill(template: string, slot: string, content: string): string {
  if (!template.includes(slot)) throw new Error(`index.html has no ${slot}: the prerender cannot place its output.`);
  return template.replace(slot, () => content);
}

const scriptTag = (file: string, attributes = '') => `<script defer src="/${file}"${attributes}></script>`;

/** The shell without the entry's script elements, which html-webpack-plugin put in its <head>. */
function withoutEntryScripts(shell: string, manifest: BuildManifest): string {
  return manifest.entry.reduce((html, file) => {
    const tag = `<script defer="defer" src="/${file}"></script>`;
    if (!html.includes(tag)) throw new Error(`index.html has no ${tag}: the static pages cannot leave it out.`);
    return html.replace(tag, '');
  }, shell);
}

async function main(): Promise<void> {
  const manifest = readManifest();
  const shell = fs.readFileSync(path.join(WEB_DIR, 'index.html'), 'utf8');
  fs.mkdirSync(path.join(WEB_DIR, 'pages'), { recursive: true });
  for (const page of PRERENDERED_PAGES) {
    const { html, styles, title } = await renderPage(page.path);
    const app = appScripts(manifest, page.chunk);
    // A hydrating page's chunk goes before the shell's entry scripts: deferred scripts keep
    // document order, and the entry must find the page installed.
    const scripts = page.static
      ? scriptTag(manifest.staticScript, ` data-app="${app.map((file) => `/${file}`).join(' ')}"`)
      : app.filter((file) => !manifest.entry.includes(file)).map((file) => scriptTag(file)).join('');
    let out = fill(page.static ? withoutEntryScripts(shell, manifest) : shell, SLOTS.html, html);
    out = fill(out, SLOTS.styles, styles);
    out = fill(out, SLOTS.scripts, scripts);
    out = out.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
    fs.writeFileSync(path.join(WEB_DIR, prerenderedFile(page.path)), out);
  }
  console.log(`prerendered ${PRERENDERED_PAGES.map((page) => page.path).join(' ')}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

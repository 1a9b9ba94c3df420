/**
 * Renders the public pages to static HTML after webpack has built the SPA (the build's
 * WebBuildPlugin runs it as `node --import tsx build/prerender.ts`, with NODE_ENV=production so
 * React renders as the production bundle does). Each page is the shell index.html with the page's
 * markup in #root, Emotion's critical CSS in <head>, its title, and its chunk's scripts beside the
 * entry's, written to dist/web/pages/<name>.html for server/plugins/web.ts to serve.
 */
import fs from 'node:fs';
import path from 'node:path';
import { escapeHtml, prerenderedFile, SLOTS } from '../src/lib/pageSlots';
import { PRERENDERED_PAGES } from '../src/app/routes';
import { renderPage } from '../src/prerender';
import { readManifest, WEB_DIR } from './manifest';

function fill(template: string, slot: string, content: string): string {
  if (!template.includes(slot)) throw new Error(`index.html has no ${slot}: the prerender cannot place its output.`);
  return template.replace(slot, () => content);
}

async function main(): Promise<void> {
  const manifest = readManifest();
  const shell = fs.readFileSync(path.join(WEB_DIR, 'index.html'), 'utf8');
  fs.mkdirSync(path.join(WEB_DIR, 'pages'), { recursive: true });
  for (const page of PRERENDERED_PAGES) {
    const { html, styles, title } = await renderPage(page.path);
    // The page's chunk runs before the entry (deferred scripts keep document order), so the
    // router finds it installed instead of fetching it after the entry has run.
    const scripts = (manifest.chunks[page.chunk] ?? [])
      .filter((file) => !manifest.entry.includes(file))
      .map((file) => `<script defer src="/${file}"></script>`)
      .join('');
    let out = fill(shell, SLOTS.html, html);
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

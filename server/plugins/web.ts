import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { fillConfigSlots, NONCE_SLOT, PLAIN_SHELL_FILE, SCRIPT_NONCE_SLOT, SLOTS } from '../../contract/pageSlots';
import { isAppPath, PARAM_PATHS } from '../../contract/appPaths';
import { CONFIG_ELEMENT_ID, type RuntimeConfig } from '../../contract/runtimeConfig';
import { errorBody } from '../errors';

/** webpack names long-lived files `name.<contenthash>.ext` (and the build their .br/.gz copies): safe to cache for a year. */
const HASHED = /\.[0-9a-f]{16,}\.(?:js|css|woff2?|svg|png|webp)(?:\.br|\.gz)?$/;
/**
 * Never served as files: dotfiles (`.env`, `.git/`) and source maps, even if such a file lands in
 * the web folder, and the HTML templates, which only go out filled (see `pageTemplate`).
 */
const PRIVATE = /(^|\/)\.|\.map$|\.html$/;

/** Runtime settings as JSON that can sit inside a script element (no `</script>` breakout). */
function configScript(config: RuntimeConfig): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return `<script id="${CONFIG_ELEMENT_ID}" type="application/json">${json}</script>`;
}

/** A response's CSP nonces, as @fastify/helmet makes them. */
type Nonces = { style: string; script: string };

/**
 * A page of the build with this server's runtime config filled in (once, at start-up) and a
 * function that puts a response's nonces in. The prerendered pages hold slots where the brand,
 * mailboxes and links go, so what the build rendered is never a stale value (contract/pageSlots.ts).
 */
function pageTemplate(html: string, config: RuntimeConfig): (nonces: Nonces) => string {
  // Split first, so that no config value can become a nonce slot, nor the other way round: the
  // odd parts are the nonce slots.
  const parts = html
    .replace('<head>', `<head><meta name="csp-nonce" content="${NONCE_SLOT}">`)
    .split(new RegExp(`(${NONCE_SLOT}|${SCRIPT_NONCE_SLOT})`))
    .map((part, i) => {
      if (i % 2 === 1) return part;
      let filled = fillConfigSlots(part, config).replace(SLOTS.config, () => configScript(config));
      // The shell's slots for a prerendered page's markup, styles and scripts stay empty.
      for (const slot of Object.values(SLOTS)) filled = filled.replaceAll(slot, '');
      return filled;
    });
  return (nonces) => parts.map((part, i) => (i % 2 === 0 ? part : part === NONCE_SLOT ? nonces.style : nonces.script)).join('');
}

/**
 * Serves the production SPA: hashed assets with long caching (brotli or gzip copies when the
 * browser takes them), each prerendered public page at its path, and the plain shell for
 * every other non-API path, so client routes and the client-rendered 404 page work on a reload or
 * a deep link; a path the SPA has no page for gets its not-found page with the status 404. Every
 * page carries the runtime config and this response's nonces.
 */
export async function registerWeb(app: FastifyInstance, webDir: string, config: RuntimeConfig): Promise<void> {
  const indexFile = path.join(webDir, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ webDir }, 'no web build found: serving the API only (run `npm run build`)');
    app.setNotFoundHandler((request, reply) => notFound(request.method, request.url, reply));
    return;
  }
  const shell = pageTemplate(fs.readFileSync(indexFile, 'utf8'), config);
  // The shell with Chakra's global CSS (build/prerender.ts), for the pages with a parameter. As
  // routes, they are compressed (a not-found handler's answers are not, which its small bare
  // shell can do without).
  const styledShellFile = path.join(webDir, PLAIN_SHELL_FILE);
  const styledShell = fs.existsSync(styledShellFile) ? pageTemplate(fs.readFileSync(styledShellFile, 'utf8'), config) : shell;

  await app.register(fastifyStatic, {
    root: webDir,
    index: false,
    wildcard: false,
    dotfiles: 'ignore',
    preCompressed: true,
    allowedPath: (pathname) => !PRIVATE.test(pathname),
    setHeaders(reply, filePath) {
      reply.header('Cache-Control', HASHED.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  const sendPage = (reply: FastifyReply, page: (nonces: Nonces) => string) =>
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(page(reply.cspNonce));

  const pagesDir = path.join(webDir, 'pages');
  const prerendered = fs.existsSync(pagesDir) ? fs.readdirSync(pagesDir).filter((file) => file.endsWith('.html')) : [];
  for (const file of prerendered) {
    const name = file.slice(0, -'.html'.length);
    const page = pageTemplate(fs.readFileSync(path.join(pagesDir, file), 'utf8'), config);
    app.get(name === 'index' ? '/' : `/${name}`, (_request, reply) => sendPage(reply, page));
  }
  if (!prerendered.includes('index.html')) app.get('/', (_request, reply) => sendPage(reply, shell));
  for (const pathname of PARAM_PATHS) app.get(pathname, (_request, reply) => sendPage(reply, styledShell));
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !path.extname(pathname) && !PRIVATE.test(pathname);
    if (isPage && !pathname.startsWith('/api/')) return sendPage(reply.status(isAppPath(pathname) ? 200 : 404), shell);
    return notFound(request.method, request.url, reply);
  });
}

function notFound(method: string, url: string, reply: FastifyReply) {
  const pathname = url.split('?')[0] ?? '/';
  const message = pathname.startsWith('/api/')
    ? `There is no API route ${method} ${pathname}.`
    : `Nothing is served at ${pathname}.`;
  return reply.status(404).send(errorBody('not_found', message));
}

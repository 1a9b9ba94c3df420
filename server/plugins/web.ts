import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONFIG_ELEMENT_ID, type RuntimeConfig } from '../../src/lib/runtimeConfig';
import { errorBody } from '../errors';

/** webpack names long-lived files `name.<contenthash>.ext`: safe to cache for a year. */
const HASHED = /\.[0-9a-f]{16,}\.(?:js|css|woff2?|svg|png|webp)$/;
const CONFIG_SLOT = '<!--app-config-->';
/** Never served, even if such a file lands in the web folder: dotfiles (`.env`, `.git/`) and source maps. */
const PRIVATE = /(^|\/)\.|\.map$/;

/** Runtime settings as JSON that can sit inside a script element (no `</script>` breakout). */
function configScript(config: RuntimeConfig): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return `<script id="${CONFIG_ELEMENT_ID}" type="application/json">${json}</script>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Serves the production SPA: hashed assets with long caching, and index.html (with the runtime
 * config and this response's style nonce) for every other non-API path, so client routes and the
 * client-rendered 404 page work on a reload or a deep link.
 */
export async function registerWeb(app: FastifyInstance, webDir: string, config: RuntimeConfig): Promise<void> {
  const indexFile = path.join(webDir, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ webDir }, 'no web build found: serving the API only (run `npm run build`)');
    app.setNotFoundHandler((request, reply) => notFound(request.method, request.url, reply));
    return;
  }
  const template = fs
    .readFileSync(indexFile, 'utf8')
    .replaceAll('__BRAND_NAME__', escapeHtml(config.brandName))
    .replace(CONFIG_SLOT, configScript(config));

  await app.register(fastifyStatic, {
    root: webDir,
    index: false,
    wildcard: false,
    dotfiles: 'ignore',
    allowedPath: (pathname) => !PRIVATE.test(pathname),
    setHeaders(reply, filePath) {
      reply.header('Cache-Control', HASHED.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  const sendIndex = (reply: FastifyReply) => {
    const nonce = reply.cspNonce.style;
    return reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(template.replace('<head>', `<head><meta name="csp-nonce" content="${nonce}">`));
  };

  app.get('/', (_request, reply) => sendIndex(reply));
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !path.extname(pathname) && !PRIVATE.test(pathname);
    if (isPage && !pathname.startsWith('/api/')) return sendIndex(reply);
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

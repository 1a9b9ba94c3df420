import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';

/**
 * Security headers of pages and files (helmet). Scripts come only from our own origin (no inline
 * script at all); Emotion's run-time styles carry the per-response nonce that `web.ts` hands the page.
 */
export async function registerPageSecurity(app: FastifyInstance, config: Config): Promise<void> {
  const apiOrigin = config.web.apiBase ? new URL(config.web.apiBase).origin : null;
  // The test-mode checkout form redirects to the web app's address, and browsers check a form's
  // redirects against form-action too.
  const publicOrigin = new URL(config.publicUrl).origin;
  await app.register(helmet, {
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: apiOrigin ? ["'self'", apiOrigin] : ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'", publicOrigin],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: config.trustProxy ? [] : null,
      },
    },
    // HSTS only means something behind TLS, which in production sits at the proxy.
    strictTransportSecurity: config.trustProxy ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
  });
}

/** Lets a SPA hosted on another origin call the API (CORS allow-list; no cookies). */
export async function registerCors(app: FastifyInstance, config: Config): Promise<void> {
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Content-Type', 'Authorization', 'Idempotency-Key'],
      credentials: false,
      maxAge: 600,
    });
  }
}

/** The headers of every API answer: nothing may render, frame or sniff a JSON response. */
export function apiSecurityHeaders(behindTls: boolean): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'same-site',
    'cache-control': 'no-store',
    ...(behindTls ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

import compress from '@fastify/compress';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config';
import { openDatabase, type DatabaseHandle } from './db/database';
import { errorBody, registerErrorHandling } from './errors';
import { registerSecurity } from './plugins/security';
import { registerWeb } from './plugins/web';
import { healthRoutes } from './routes/health';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: DatabaseHandle;
  }
}

export interface AppOptions {
  config: Config;
  /** An already open database; otherwise the app opens (and on close, closes) its own. */
  database?: DatabaseHandle;
  /** Where logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
}

/** Request bodies are small JSON documents; anything bigger is a mistake or an attack. */
export const BODY_LIMIT = 64 * 1024;

function loggerOptions(config: Config, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    ...(stream ? { stream } : {}),
    redact: { paths: ['req.headers.authorization', '*.password', '*.token'], censor: '[redacted]' },
    serializers: {
      // Query strings can carry one-time tokens (a reset link); log the path only.
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: req.url.split('?')[0],
        ip: req.ip,
      }),
    },
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: loggerOptions(config, options.logStream),
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    // On close, drop idle keep-alive sockets at once; requests in flight still get their answers.
    forceCloseConnections: 'idle',
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });

  const ownsDatabase = !options.database;
  const database = options.database ?? (await openDatabase(config));
  app.decorate('config', config);
  app.decorate('database', database);
  if (ownsDatabase) app.addHook('onClose', async () => database.close());

  // JSON is the only body the API accepts: a text/plain body is a 415, not a string.
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  await registerSecurity(app, config);
  await app.register(compress, { global: true, threshold: 1024 });

  await app.register(
    async (api) => {
      api.addHook('onSend', async (request, reply, payload) => {
        if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
        return payload;
      });
      await api.register(healthRoutes);
      api.setNotFoundHandler((request, reply) =>
        reply
          .status(404)
          .send(errorBody('not_found', `There is no API route ${request.method} ${request.url.split('?')[0]}.`)),
      );
    },
    { prefix: '/api/v1' },
  );
  await registerWeb(app, config.webDir, config.web);
  return app;
}

import zlib from 'node:zlib';
import compress from '@fastify/compress';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config';
import { createAiProvider } from './ai';
import type { AiProvider } from './ai/provider';
import swaggerUi from '@fastify/swagger-ui';
import { openDatabase, type DatabaseHandle } from './db/database';
import { systemClock, type Clock } from './domain/clock';
import { startRetention } from './domain/retention';
import { createTokenService, loadAuthSecret, type TokenService } from './domain/tokens';
import { createMailer, type Mailer } from './mail/mailer';
import { createMailQueue, type MailQueue } from './mail/queue';
import { registerAuth } from './plugins/auth';
import { API_PREFIX, documentCommonAnswers, registerOpenApi } from './plugins/openapi';
import { registerBodyParsers } from './plugins/bodies';
import { exemptPeers, limitConnections } from './plugins/connections';
import { memoryStore, redisStore, type RateLimitStore } from './plugins/rateLimit';
import { mfaRoutes } from './routes/mfa';
import { loadSecondFactorKey } from './domain/secondFactors';
import { authRoutes } from './routes/auth';
import { verifyEmailRoutes } from './routes/verifyEmail';
import { userRoutes } from './routes/users';
import { queryRoutes } from './routes/query';
import { deviceLinkRoutes, oauthMetadataRoutes, oauthProtocolRoutes } from './routes/oauth';
import { apiKeyRoutes } from './routes/apiKeys';
import { sessionRoutes } from './routes/sessions';
import { clientErrorHandler, errorBody, frameworkErrorHandler, registerErrorHandling } from './errors';
import { apiSecurityHeaders, registerCors, registerPageSecurity } from './plugins/security';
import { registerWeb } from './plugins/web';
import { healthRoutes, instanceHealth, type InstanceHealth } from './routes/health';
import { createBilling } from './billing';
import type { PaymentProvider } from './billing/provider';
import { testModePages } from './billing/testPages';
import { billingWebhookRoutes } from './routes/billingWebhook';
import { subscriptionRoutes } from './routes/subscription';
import { teamRoutes } from './routes/teams';
import { invitationRoutes } from './routes/invitations';
import { usageRoutes } from './routes/usage';
import { accountExportRoutes } from './routes/accountExport';
import { functionRoutes } from './routes/functions';
import { passkeyRoutes, passkeySignInRoutes } from './routes/webauthn';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: DatabaseHandle;
    clock: Clock;
    tokens: TokenService;
    /** Every mail goes through this durable queue; `send` queues it. */
    mailer: MailQueue;
    rateLimits: RateLimitStore;
    billing: PaymentProvider;
    ai: AiProvider;
    /** The key second factors' secrets are sealed with (server/domain/secondFactors.ts). */
    secondFactorKey: Buffer;
    /** The instance's health as last seen (server/routes/health.ts). */
    health: InstanceHealth;
  }
}

export interface AppOptions {
  config: Config;
  /** An already open database; otherwise the app opens (and on close, closes) its own. */
  database?: DatabaseHandle;
  /** Where logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** Time source for expiries and windows; tests move it. */
  clock?: Clock;
  /** Replaces the configured mail transport the queue sends with (tests). */
  mailer?: Mailer;
  /** Replaces the configured AI provider (tests). */
  aiProvider?: AiProvider;
}

/** Request bodies are small JSON documents; anything bigger is a mistake or an attack. */
export const BODY_LIMIT = 64 * 1024;

/** Paths whose next segment is a secret: an invitation link's token (the page and its API calls). */
const TOKEN_IN_PATH = /^(\/api\/v1\/invitations\/|\/invite\/)[^/]+/;

function loggerOptions(config: Config, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  // Silent means no logger at all, not one that formats nothing on every request.
  if (config.logLevel === 'silent') return false;
  return {
    level: config.logLevel,
    ...(stream ? { stream } : {}),
    redact: { paths: ['req.headers.authorization', '*.password', '*.token'], censor: '[redacted]' },
    serializers: {
      // Query strings can carry one-time tokens (a reset link, a device code); log the path only,
      // and without the invitation token some paths carry.
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: req.url.split('?')[0]!.replace(TOKEN_IN_PATH, '$1[redacted]'),
        ip: req.ip,
      }),
    },
  };
}

/**
 * Fastify trusts nobody for a bare hop count (it cannot tell the proxy from a client that reached
 * the server directly), so hops are counted here, from the server outwards: with 1 the client is
 * the address the proxy itself appended, never the left end of `X-Forwarded-For` the client wrote.
 */
function trustedProxies(trust: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const limits = config.connections;
  const app = Fastify({
    logger: loggerOptions(config, options.logStream),
    bodyLimit: BODY_LIMIT,
    trustProxy: trustedProxies(config.trustProxy),
    // A client sending its headers or body slower than these is cut with a 408, and an idle
    // kept-alive connection is closed: none can hold a connection open for ever. Node checks the
    // two request timeouts on a timer (30 s by default), run here often enough for the bounds to hold.
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    // Fastify's own 503 while closing has its default body: the hook below answers it instead.
    return503OnClosing: false,
    // On close, drop idle keep-alive sockets at once; requests in flight still get their answers.
    forceCloseConnections: 'idle',
    // Union types (`type: [...]`) state "a cell is text, a number, a boolean or empty" directly,
    // and fail with one plain message where `anyOf` would give one per branch.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false, allowUnionTypes: true } },
  });

  // A keep-alive connection whose request was still being answered when shutdown began is not
  // idle at that moment, so Node would leave it open until its keep-alive timeout and hold the
  // exit for a minute: while closing, connections are closed as soon as they fall idle.
  limitConnections(app.server, { max: limits.maxConnections, perAddress: limits.maxConnectionsPerAddress, exempt: exemptPeers(config.trustProxy) }, app.log);

  let sweeper: NodeJS.Timeout | undefined;
  let closing = false;
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    // Requests still arriving on a kept-alive connection during shutdown go to another instance.
    // Sent as text, so no route's own 503 schema (health's) reshapes it.
    void reply
      .status(503)
      .header('connection', 'close')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(errorBody('service_unavailable', 'The service is restarting. Please try again shortly.')));
  });
  app.addHook('preClose', (done) => {
    closing = true;
    sweeper = setInterval(() => app.server.closeIdleConnections(), 25);
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });

  const ownsDatabase = !options.database;
  const database =
    options.database ??
    (await openDatabase({ ...config, onCheckpointError: (message) => app.log.error({ event: 'sqlite.checkpoint_failed' }, `WAL checkpoint failed: ${message}`) }));
  if (ownsDatabase) app.addHook('onClose', async () => database.close());
  const clock = options.clock ?? systemClock;
  const rateLimits = config.redisUrl ? redisStore(config.redisUrl, `${config.redisPrefix}rl:`) : memoryStore(clock);
  app.addHook('onClose', async () => rateLimits.close());
  app.decorate('config', config);
  app.decorate('database', database);
  app.decorate('clock', clock);
  app.decorate('tokens', createTokenService(await loadAuthSecret(database.db, config.authSecret), clock));
  app.decorate('secondFactorKey', loadSecondFactorKey(config.secondFactorKey, config.dataDir));
  const mailQueue = createMailQueue({
    db: database.db,
    engine: database.engine,
    transport: options.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, log: app.log }),
    clock,
    log: app.log,
    settings: config.mailQueue,
  });
  // Registered after the database's own hook, so it runs first: a send in flight ends before the database closes.
  app.addHook('onClose', async () => mailQueue.stop());
  app.decorate('mailer', mailQueue);
  app.decorate('health', instanceHealth(database, () => mailQueue.health()));
  // Mail an earlier instance queued (or left mid-send) goes out as soon as this one is up.
  app.addHook('onReady', async () => mailQueue.kick());
  app.decorate('rateLimits', rateLimits);
  const billing = createBilling({ config, database, clock, log: app.log });
  app.decorate('billing', billing.provider);
  app.addHook('onClose', async () => billing.provider.close());
  // Registered after the database's own hook, so it runs first (Fastify runs onClose hooks last in, first out).
  const retention = startRetention(database, clock, app.log, config.retention);
  app.addHook('onClose', async () => retention.stop());
  app.decorate('ai', options.aiProvider ?? createAiProvider(config.ai));
  registerAuth(app);

  registerBodyParsers(app);
  registerErrorHandling(app);
  await registerCors(app, config);
  await registerOpenApi(app, config);
  // JSON answers need none of the page policies helmet computes per response (nonces and
  // all): one fixed, strict set is sent instead, which is cheaper on every API call.
  const apiHeaders = apiSecurityHeaders(config.trustProxy !== false);
  const sendApiHeaders = (scope: FastifyInstance) =>
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.headers(apiHeaders);
      done();
    });
  await app.register(
    async (api) => {
      sendApiHeaders(api);
      documentCommonAnswers(api);
      await api.register(healthRoutes);
      await api.register(authRoutes);
      await api.register(verifyEmailRoutes);
      await api.register(mfaRoutes);
      await api.register(userRoutes);
      await api.register(subscriptionRoutes);
      if (billing.stripe) await api.register(billingWebhookRoutes, { stripe: billing.stripe, context: billing.context });
      await api.register(queryRoutes);
      await api.register(teamRoutes);
      await api.register(invitationRoutes);
      await api.register(oauthProtocolRoutes);
      await api.register(deviceLinkRoutes);
      await api.register(sessionRoutes);
      await api.register(apiKeyRoutes);
      await api.register(usageRoutes);
      await api.register(accountExportRoutes);
      await api.register(functionRoutes);
      await api.register(passkeySignInRoutes);
      await api.register(passkeyRoutes);
      api.setNotFoundHandler((request, reply) =>
        reply
          .status(404)
          .send(errorBody('not_found', `There is no API route ${request.method} ${request.url.split('?')[0]}.`)),
      );
    },
    { prefix: API_PREFIX },
  );
  // RFC 8414's metadata sits at the root, with the API's headers.
  await app.register(async (wellKnown) => {
    sendApiHeaders(wellKnown);
    await wellKnown.register(oauthMetadataRoutes);
  });
  // Pages, files and the API docs: helmet's headers and compression apply here only, since JSON
  // answers are small and carry their own fixed headers.
  await app.register(async (web) => {
    await registerPageSecurity(web, config);
    // Scripts are sent as brotli files made at build time. A page is compressed per response (its
    // nonces differ each time): at quality 5 rather than @fastify/compress's 4, about 8 % smaller
    // for a third of a millisecond more, which keeps the landing page within the first 14.6 kB a
    // new connection can send before it waits a round trip for the client's acknowledgement.
    await web.register(compress, { global: true, threshold: 1024, brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } } });
    await web.register(swaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { validatorUrl: null },
      staticCSP: true,
      transformStaticCSP: (header) => header.replace("frame-ancestors 'self'", "frame-ancestors 'none'"),
    });
    if (billing.test) await web.register(testModePages, { provider: billing.test, config });
    await registerWeb(web, config.webDir, config.web);
  });
  return app;
}

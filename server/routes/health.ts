import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorSchema } from '../../contract/schemas';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  mail: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
    description: '`degraded` while this instance cannot send mail (it stays queued and is tried again); the instance answers on.',
  }),
});

/** How old the database's last known state may be before a health check asks for a fresh one (without waiting for it). */
const STALE_AFTER_MS = 5_000;
/** How long the readiness check waits for the database. */
const READY_TIMEOUT_MS = 1_000;

/**
 * Liveness and readiness, for load balancers and monitors. `GET /health` answers from memory, in
 * microseconds whatever the load: the database's state is the last probe's (a check finding it
 * older than 5 s starts a new probe and does not wait for it). `GET /health/ready` probes the
 * database (on PostgreSQL on a connection of its own, never in the pool's queue) within 1 s and
 * answers 503 when it did not answer: the check a load balancer routes by.
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app;
  let reachable = true;
  let probedAt = Date.now();
  const probe = async () => {
    probedAt = Date.now();
    reachable = await database.ping(READY_TIMEOUT_MS);
    return reachable;
  };
  const answer = () => ({
    status: reachable ? ('ok' as const) : ('degraded' as const),
    database: reachable ? ('ok' as const) : ('unreachable' as const),
    engine: database.engine,
    mail: app.mailer.health(),
  });
  const responses = { 200: Health, 503: Health, 500: ErrorSchema };

  app.get('/health', { schema: { tags: ['health'], summary: 'Whether the server answers, and the database as last seen (from memory, never waiting)', response: responses } }, async () => {
    if (Date.now() - probedAt > STALE_AFTER_MS) void probe();
    return answer();
  });

  app.get(
    '/health/ready',
    { schema: { tags: ['health'], summary: 'Whether the server can serve now: the database answered within 1 s (503 otherwise)', response: responses } },
    async (_request, reply) => {
      await probe();
      return reply.status(reachable ? 200 : 503).send(answer());
    },
  );
};

import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorSchema } from '../../contract/schemas';
import type { DatabaseHandle } from '../db/database';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
    description: '`degraded` while the database is unreachable, or (on `HEALTH_PORT`, with a 503) while the app has not answered its health thread for 5 s.',
  }),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  mail: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
    description: '`degraded` while this instance cannot send mail (it stays queued and is tried again); the instance answers on.',
  }),
});
export type HealthBody = Static<typeof Health>;

/** How old the database's last known state may be before a health check asks for a fresh one (without waiting for it). */
export const STALE_AFTER_MS = 5_000;
/** How long the readiness check waits for the database. */
const READY_TIMEOUT_MS = 1_000;

/** The instance's health as last seen, kept in memory: what `GET /health` and the health port answer. */
export interface InstanceHealth {
  answer(): HealthBody;
  /** When the database was last probed (ms since the epoch). */
  probedAt(): number;
  /** Probes the database now (within 1 s) and answers whether it answered. */
  probe(): Promise<boolean>;
  /** Starts a probe when the last one is older than 5 s, without waiting for it. */
  refreshIfStale(): void;
}

export function instanceHealth(database: DatabaseHandle, mail: () => HealthBody['mail']): InstanceHealth {
  let reachable = true;
  let probedAt = Date.now();
  const probe = async () => {
    probedAt = Date.now();
    reachable = await database.ping(READY_TIMEOUT_MS);
    return reachable;
  };
  return {
    answer: () => ({
      status: reachable ? 'ok' : 'degraded',
      database: reachable ? 'ok' : 'unreachable',
      engine: database.engine,
      mail: mail(),
    }),
    probedAt: () => probedAt,
    probe,
    refreshIfStale() {
      if (Date.now() - probedAt > STALE_AFTER_MS) void probe();
    },
  };
}

/**
 * Liveness and readiness, for load balancers and monitors. `GET /health` answers from memory, in
 * microseconds whatever the load: the database's state is the last probe's (a check finding it
 * older than 5 s starts a new probe and does not wait for it). `GET /health/ready` probes the
 * database (on PostgreSQL on a connection of its own, never in the pool's queue) within 1 s and
 * answers 503 when it did not answer: the check a load balancer routes by. The same liveness
 * answer is served off the event loop on `HEALTH_PORT` when one is set (`server/healthPort.ts`).
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { health } = app;
  const responses = { 200: Health, 503: Health, 500: ErrorSchema };

  app.get('/health', { schema: { tags: ['health'], summary: 'Whether the server answers, and the database as last seen (from memory, never waiting)', response: responses } }, async () => {
    health.refreshIfStale();
    return health.answer();
  });

  app.get(
    '/health/ready',
    { schema: { tags: ['health'], summary: 'Whether the server can serve now: the database answered within 1 s (503 otherwise)', response: responses } },
    async (_request, reply) => {
      const reachable = await health.probe();
      return reply.status(reachable ? 200 : 503).send(health.answer());
    },
  );
};

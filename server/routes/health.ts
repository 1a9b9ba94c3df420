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

/** Liveness and database reachability, for load balancers and monitors. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    { schema: { tags: ['health'], summary: 'Whether the server and its database answer', response: { 200: Health, 503: Health, 500: ErrorSchema } } },
    async (_request, reply) => {
      const reachable = await app.database.ping();
      return reply.status(reachable ? 200 : 503).send({
        status: reachable ? 'ok' : 'degraded',
        database: reachable ? 'ok' : 'unreachable',
        engine: app.database.engine,
        mail: app.mailer.health(),
      });
    },
  );
};

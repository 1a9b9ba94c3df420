import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { endSession, liveSessions, revokeUserSessions } from '../domain/sessions';
import { ApiError } from '../errors';
import { sessionIdOf } from '../plugins/auth';
import { SessionInfoSchema } from '../../contract/credentials';
import { ErrorSchema, Text } from '../../contract/schemas';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** "Sessions and devices": the account's live sessions, web and add-on, and ending them. Web sessions only. */
export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  app.addHook('onRequest', app.authenticate);

  app.get(
    '/sessions',
    {
      schema: {
        tags: ['sessions'],
        summary: "The account's live sessions (web and add-on), the most recently used first",
        security: [{ bearer: [] }],
        response: { 200: Type.Object({ sessions: Type.Array(SessionInfoSchema) }) },
      },
    },
    async (request) => {
      const current = sessionIdOf(request);
      const sessions = await liveSessions(db, request.auth!.userId, app.clock.now());
      return {
        sessions: sessions.map((session) => ({
          id: session.id,
          kind: session.kind,
          client: session.client_id === null ? null : (app.config.device.clients[session.client_id] ?? session.client_id),
          created_at: iso(session.created_at)!,
          last_used_at: iso(session.last_used_at),
          ip: session.ip,
          user_agent: session.user_agent,
          current: session.id === current,
        })),
      };
    },
  );

  app.delete(
    '/sessions/:id',
    {
      schema: {
        tags: ['sessions'],
        summary: 'End one session at once: its next request is refused and its refresh token no longer works',
        security: [{ bearer: [] }],
        params: Type.Object({ id: Text({ minLength: 1, maxLength: 100 }) }),
        response: { 204: Type.Null(), 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      sessionIdOf(request);
      const ended = await endSession(db, request.auth!.userId, request.params.id, 'ended_from_profile', app.clock.now());
      if (!ended) throw new ApiError(404, 'session_not_found', 'There is no live session with this id.', { field: 'id' });
      request.log.info({ event: 'auth.session_ended', userId: request.auth!.userId, ip: request.ip }, 'session ended from the profile');
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/sessions/end-others',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Sign out everywhere else: end every live session but this one',
        security: [{ bearer: [] }],
        response: { 200: Type.Object({ ended: Type.Integer({ description: 'How many sessions were ended.' }) }) },
      },
    },
    async (request) => {
      const ended = await revokeUserSessions(db, request.auth!.userId, 'signed_out_elsewhere', app.clock.now(), sessionIdOf(request));
      request.log.info({ event: 'auth.sessions_ended', userId: request.auth!.userId, ended, ip: request.ip }, 'signed out everywhere else');
      return { ended };
    },
  );
};

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorSchema } from '../../contract/schemas';
import { accountExport } from '../domain/accountExport';
import { periodsAt } from '../domain/usageReport';
import { consume, type Limit } from '../plugins/rateLimit';

/** An export reads every table of the account: once an hour is plenty for a person, and bounds the work. */
export const ACCOUNT_EXPORT_LIMIT: Limit = { what: 'account exports', max: 1, windowMs: 60 * 60_000 };

const Section = Type.Array(Type.Object({}, { additionalProperties: true }));

const AccountExportSchema = Type.Object(
  {
    format: Type.Literal('account-export/1'),
    exported_at: Type.String({ format: 'date-time' }),
    tables: Type.Record(Type.String(), Type.String(), { description: 'Every table that holds data about the person, and where this document puts it.' }),
    profile: Type.Object({ id: Type.String(), email: Type.String() }, { additionalProperties: true }),
    security: Type.Object({}, { additionalProperties: true, description: 'Second factors and passkeys, without secrets.' }),
    sessions: Section,
    api_keys: Section,
    device_sign_ins: Section,
    password_resets: Section,
    subscription: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    billing_events: Section,
    billing_pages: Section,
    usage: Type.Object({ months: Section, days: Section, team_rollups: Section }),
    team: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

/** `GET /users/me/export`: everything held about the account, as a JSON file, every plan, once an hour (web sessions only). */
export const accountExportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.authenticate);

  app.get(
    '/users/me/export',
    {
      schema: {
        tags: ['users'],
        summary: 'Everything the service holds about the account, as a JSON file (every plan; at most once an hour)',
        security: [{ bearer: [] }],
        response: {
          200: {
            description: 'A JSON file (Content-Disposition: attachment) with no secret in it: no password hash, key, token or link.',
            content: { 'application/json': { schema: AccountExportSchema } },
          },
          401: ErrorSchema,
          429: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const user = request.currentUser!;
      const key = `account-export:${user.id}`;
      const { ticket } = await consume(app.rateLimits, [[key, ACCOUNT_EXPORT_LIMIT]]);
      const now = app.clock.now();
      let document: Awaited<ReturnType<typeof accountExport>>;
      try {
        document = await accountExport(app.database.db, user.id, user.plan, now);
      } catch (error) {
        // An export that failed on our side does not use up the hour.
        await app.rateLimits.release([key], ticket);
        throw error;
      }
      request.log.info({ event: 'account.exported', userId: user.id, ip: request.ip }, 'account exported');
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="account-export-${periodsAt(now).day}.json"`)
        .send(document);
    },
  );
};

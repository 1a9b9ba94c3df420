import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { UsageAnalyticsSchema, UsageRangeQuery } from '../../contract/analytics';
import { ErrorSchema } from '../../contract/schemas';
import { checkRange, usageAnalytics, usageQueriesCsv } from '../domain/analytics';
import { PlanRequiredAnswer, requireFeature } from '../plugins/planFeatures';

/**
 * Advanced analytics and the per-query CSV (Professional and Team; decisions.md, "Professional's
 * promises"). An API key or add-on session with scope `usage:read` may read both (scopes.ts).
 */
export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  const clients = app.config.device.clients;
  app.addHook('onRequest', app.authenticate);
  const range = (query: { from: string; to: string }) => checkRange(query, app.clock.now(), app.config.retention.months);

  app.get(
    '/usage/analytics',
    {
      preHandler: requireFeature('analytics'),
      schema: {
        tags: ['usage'],
        summary: 'Queries, tokens and processing times of a range of days, by day, task and credential (Professional, Team)',
        security: [{ bearer: [] }],
        querystring: UsageRangeQuery,
        response: { 200: UsageAnalyticsSchema, 400: ErrorSchema, 401: ErrorSchema, 403: PlanRequiredAnswer },
      },
    },
    async (request) => usageAnalytics(db, clients, request.auth!.userId, range(request.query)),
  );

  app.get(
    '/usage/export.csv',
    {
      preHandler: requireFeature('exports'),
      schema: {
        tags: ['usage'],
        summary: 'The queries of a range of days as CSV, one row per query: at,task,credential_kind,credential_name,prompt_tokens,completion_tokens,processing_ms (Professional, Team)',
        security: [{ bearer: [] }],
        querystring: UsageRangeQuery,
        response: {
          200: {
            description: 'UTF-8 with a byte order mark and a header row, RFC 4180 quoting, formulas neutralised; never a prompt, data or answer.',
            content: { 'text/csv': { schema: Type.String() } },
          },
          400: ErrorSchema,
          401: ErrorSchema,
          403: PlanRequiredAnswer,
        },
      },
    },
    async (request, reply) => {
      const days = range(request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${days.from}-to-${days.to}.csv"`)
        .send(await usageQueriesCsv(db, clients, request.auth!.userId, days));
    },
  );
};

import { Type, type Static } from '@sinclair/typebox';

/**
 * The wire shapes of usage analytics (decisions.md, "Professional's promises"): server/routes/usage.ts
 * answers with them, the client reads their static types.
 */

export const UsageRangeQuery = Type.Object(
  {
    from: Type.String({ description: 'First UTC day, YYYY-MM-DD: within retention (the current month and the `RETENTION_MONTHS` before it).' }),
    to: Type.String({ description: 'Last UTC day, YYYY-MM-DD: not after today, at most 366 days after `from`.' }),
  },
  { additionalProperties: false },
);

export const UsageAnalyticsSchema = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date' }),
      queries: Type.Integer(),
      tokens: Type.Integer(),
      avg_processing_ms: Type.Number({ description: 'Mean of the answered queries, to a tenth; 0 on a day without one.' }),
    }),
    { description: 'Every day of the range, oldest first, with zeros for days without use.' },
  ),
  by_task: Type.Array(Type.Object({ task: Type.String(), queries: Type.Integer(), tokens: Type.Integer() })),
  by_credential: Type.Array(
    Type.Object({
      // Literals written out: the type provider infers `never` from a union built out of an array (schemas.ts).
      kind: Type.Union([Type.Literal('web'), Type.Literal('addon'), Type.Literal('api_key')]),
      id: Type.Union([Type.String(), Type.Null()], { description: "The session's or key's id; null for queries made before credentials were recorded." }),
      name: Type.String(),
      queries: Type.Integer(),
      tokens: Type.Integer(),
    }),
  ),
  p50_processing_ms: Type.Integer({ description: 'Median processing time of the answered queries of the range (nearest rank, exact); 0 without one.' }),
  p95_processing_ms: Type.Integer({ description: '95th percentile of the same (nearest rank, exact); 0 without one.' }),
});
export type UsageAnalytics = Static<typeof UsageAnalyticsSchema>;

import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { tryQueryMachine } from '../../machines/tryQuery/tryQuery.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type QueryAnswer } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';
import { word } from '../helpers/words';

/**
 * The Quick Start Guide's try-it chart as a test model, for the jsdom replay
 * (tests/model/tryQuery.model.test.tsx): the answers the sample query may get (the assistant's
 * answer, the server refusing it with its reason, no connection), the generated paths, and what the
 * panel shows in each state.
 */

const t = messages.guide;

const answer = (text: string, monthly: number, formula: QueryAnswer['formula'], verified: boolean): QueryAnswer => ({
  answer: text,
  tokens: { prompt: 120, completion: 80, total: 200 },
  processing_time_ms: 412,
  usage: { monthly_queries: monthly, daily_tokens: monthly * 200, queries_per_minute: 1, processing_time: 0.4, total_queries: monthly },
  formula,
  verified,
});
const sumif = '=SUMIF(A2:A9,"North",C2:C9)';
// A checked formula, then one the engine could not evaluate (as a model's might be).
const first = answer(`Understood: the total of Revenue where Region is "North". ${sumif}`, 1, { text: sumif, valid: true, value: 26300, error: null, references: ['A2:A9', 'C2:C9'], functions: ['SUMIF'] }, true);
const xlookup = '=XLOOKUP("North",A2:A9,C2:C9)';
const second = answer(`Try ${xlookup}`, 2, { text: xlookup, valid: true, value: null, error: 'unsupported_function', references: ['A2:A9', 'C2:C9'], functions: ['XLOOKUP'] }, false);
export const QUOTA = 'All 100 queries of the Free plan for this month are used. They renew on 2026-12-01 (UTC).';

const ZERO_CAP = 'You have used all 0 queries your team’s admin allows you this month. Ask them to raise your cap; it renews on 2026-12-01 (UTC).';

export const tryQueryOutcomes: ActorOutcome[] = [
  { type: 'xstate.done.actor.ask', output: first },
  { type: 'xstate.done.actor.ask', output: second },
  { type: 'xstate.error.actor.ask', error: new ApiRequestError('API Error: Too Many Requests', 429, 'monthly_quota_exceeded', QUOTA) },
  { type: 'xstate.error.actor.ask', error: new ApiRequestError(messages.api.network, 0) },
  // A team member capped at 0 by their admin: the server's sentence names the size of the cap.
  { type: 'xstate.error.actor.ask', error: new ApiRequestError('API Error: Too Many Requests', 429, 'member_cap_reached', ZERO_CAP) },
];

export type TryQuerySnapshot = SnapshotFrom<typeof tryQueryMachine>;

/** A piece of the answer as the model writes it; the chart shows the pieces so far. */
export const DELTA = 'Understood: the total of Revenue ';

const model = createTestModel(toTestModelMachine(tryQueryMachine), {
  input: { auth: null },
  events: [...tryQueryOutcomes, { type: 'query.ask' }, { type: 'query.delta', text: DELTA }],
  serializeState: (state: TryQuerySnapshot, event: ActorOutcome | undefined, previous?: TryQuerySnapshot) =>
    JSON.stringify([state.value, state.context.answer?.answer ?? null, state.context.problem, event?.type ?? null, previous?.value ?? null]),
} as never);

export const tryQueryPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const tryQueryCoverage = chartCoverage(tryQueryMachine, tryQueryPaths.map(({ path }) => path));

const panel = { role: 'region', name: t.tryTitle } as const;

/** The panel as the chart holds it: the sample, the button, the answer so far or the last answer, and the last problem. */
function tryIt(state: TryQuerySnapshot): Sight[] {
  const { answer: last, partial, problem } = state.context;
  const shown = partial === null ? last : null;
  return [
    { in: panel, role: 'heading', level: 2, name: t.tryTitle },
    { in: panel, text: 'East' },
    { in: panel, text: t.counts },
    { in: panel, role: 'button', name: state.matches('asking') ? t.asking : t.ask },
    // A cap is told in words that read right at any size, never "all 0 queries".
    { text: /all 0 queries/, absent: true },
    ...(problem ? ([{ in: panel, role: 'alert' }, { in: panel, text: word(problem) }] satisfies Sight[]) : [{ in: panel, role: 'alert', absent: true } satisfies Sight]),
    ...(shown
      ? ([
          { in: panel, role: 'status' },
          { in: panel, text: t.answerTitle },
          { in: panel, text: shown.answer! },
          { in: panel, text: t.formulaTitle },
          { in: panel, text: shown.formula!.text },
          ...(shown.verified
            ? ([{ in: panel, text: t.formulaValue((shown.formula!.value as number).toLocaleString()) }, { in: panel, text: t.formulaChecked }] satisfies Sight[])
            : ([{ in: panel, text: t.formulaUnchecked(shown.formula!.error!) }, { in: panel, text: t.formulaChecked, absent: true }] satisfies Sight[])),
          { in: panel, text: t.usageNow(shown.usage.monthly_queries!, shown.usage.daily_tokens!) },
          { in: panel, role: 'link', name: t.seeDashboard },
        ] satisfies Sight[])
      : partial !== null
        ? ([
            { in: panel, role: 'status', busy: true },
            { in: panel, text: t.answerTitle },
            // The pieces so far: the model's own context may hold the piece more often than the replay sent it.
            { in: panel, text: new RegExp(`^${DELTA.trim()}`) },
            { in: panel, role: 'link', name: t.seeDashboard, absent: true },
          ] satisfies Sight[])
        : [{ in: panel, text: t.answerTitle, absent: true } satisfies Sight]),
  ];
}

export const tryQueryViews = { idle: tryIt, asking: tryIt } satisfies Record<string, (state: TryQuerySnapshot) => Sight[]>;

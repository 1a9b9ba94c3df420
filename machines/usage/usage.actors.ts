import { fromPromise } from 'xstate';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';
import { usageApi, type UsageAnalytics } from '../shared/api';
import { saveFile } from '../shared/saveFile';
import { analyticsPath, type DayRange } from './usage.range';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';

export interface RangeInput extends AuthInput {
  range: DayRange;
}

/** The name the server gives the file too (server/routes/usage.ts). */
export const csvFileName = (range: DayRange) => `usage-${range.from}-to-${range.to}.csv`;

/** The range's analytics as the page's early call already answered them (machines/shared/earlyCalls.ts), or null: the chart then loads them. */
export const knownAnalytics = (range: DayRange): UsageAnalytics | null => knownAnswer<UsageAnalytics>(analyticsPath(range)) ?? null;

/** Spends the early answer the chart started from. */
export const takeKnownAnalytics = (range: DayRange): void => takeKnownAnswer(analyticsPath(range));

export const usageActors = {
  loadAnalytics: fromPromise<UsageAnalytics, RangeInput>(({ input, signal }) =>
    withAuthRetry(input.auth, () => usageApi.analytics(input.range, { signal })),
  ),
  downloadCsv: fromPromise<void, RangeInput>(async ({ input, signal }) =>
    saveFile(await withAuthRetry(input.auth, () => usageApi.csv(input.range, { signal })), csvFileName(input.range), 'text/csv'),
  ),
};

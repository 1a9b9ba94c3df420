import { fromPromise } from 'xstate';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';
import { usageApi, type UsageAnalytics } from '../shared/api';
import { saveFile } from '../shared/saveFile';
import type { DayRange } from './usage.range';

export interface RangeInput extends AuthInput {
  range: DayRange;
}

/** The name the server gives the file too (server/routes/usage.ts). */
export const csvFileName = (range: DayRange) => `usage-${range.from}-to-${range.to}.csv`;

export const usageActors = {
  loadAnalytics: fromPromise<UsageAnalytics, RangeInput>(({ input, signal }) =>
    withAuthRetry(input.auth, () => usageApi.analytics(input.range, { signal })),
  ),
  downloadCsv: fromPromise<void, RangeInput>(async ({ input, signal }) =>
    saveFile(await withAuthRetry(input.auth, () => usageApi.csv(input.range, { signal })), csvFileName(input.range), 'text/csv'),
  ),
};

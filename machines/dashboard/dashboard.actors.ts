import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { accountApi, type DailyUsage, type SubscriptionInfo, type UsageStats } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';

/** What the dashboard shows, one part per card group; each loads, fails and retries on its own. */
export interface DashboardData {
  usage: UsageStats;
  subscription: SubscriptionInfo;
  daily: DailyUsage[];
}
export type DashboardPart = keyof DashboardData;
export const DASHBOARD_PARTS: readonly DashboardPart[] = ['usage', 'subscription', 'daily'];

export interface LoadInput extends AuthInput {
  part: DashboardPart;
}

const loaders: { [P in DashboardPart]: (signal: AbortSignal) => Promise<DashboardData[P]> } = {
  usage: (signal) => accountApi.usage({ signal }),
  subscription: (signal) => accountApi.subscription({ signal }),
  daily: async (signal) => (await accountApi.dailyUsage({ signal })).days,
};

/** Each part's call, and what of its answer the part keeps. */
const calls: { [P in DashboardPart]: { path: string; read: (body: never) => DashboardData[P] } } = {
  usage: { path: LOAD_PATHS.usage, read: (body: UsageStats) => body },
  subscription: { path: LOAD_PATHS.subscription, read: (body: SubscriptionInfo) => body },
  daily: { path: LOAD_PATHS.dailyUsage, read: (body: { days: DailyUsage[] }) => body.days },
};

/** A part as the page's early call already answered it (machines/shared/earlyCalls.ts), or null: the chart then loads it. */
export function knownPart<P extends DashboardPart>(part: P): DashboardData[P] | null {
  const body = knownAnswer<never>(calls[part].path);
  return body === undefined ? null : calls[part].read(body);
}

/** Spends the early answer a part started from. */
export const takeKnownPart = (part: DashboardPart): void => takeKnownAnswer(calls[part].path);

export const dashboardActors = {
  load: fromPromise<DashboardData[DashboardPart], LoadInput>(({ input, signal }) =>
    withAuthRetry<DashboardData[DashboardPart]>(input.auth, () => loaders[input.part](signal)),
  ),
};

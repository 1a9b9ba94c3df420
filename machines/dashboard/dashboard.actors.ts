import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { accountApi, type DailyUsage, type SubscriptionInfo, type UsageStats } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';

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

export const dashboardActors = {
  load: fromPromise<DashboardData[DashboardPart], LoadInput>(({ input, signal }) =>
    withAuthRetry<DashboardData[DashboardPart]>(input.auth, () => loaders[input.part](signal)),
  ),
};

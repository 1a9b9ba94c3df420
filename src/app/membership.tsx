import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { membershipMachine } from '../../machines/membership/membership.machine';
import { createChartContext } from '../lib/chart';
import { useAuthRef, useAuthSelector } from './auth';

/** Whether the signed-in person is in a team: one chart for the app, read by the top bar, told by the pages. */
export const MembershipChart = createChartContext(membershipMachine);

/** What a user the auth chart holds says of their team: in one or not, or nothing (a sign-in's answer has no `team_role`). */
const inTeamOf = (teamRole: string | null | undefined): boolean | undefined => (teamRole === undefined ? undefined : teamRole !== null);

/** Runs the membership chart under the auth chart: learned once per sign-in, forgotten on signing out. */
export function MembershipProvider({ children }: { children: ReactNode }) {
  const auth = useAuthRef();
  // What the auth chart holds as the app starts: a session restored before the first render says it.
  const [inTeam] = useState(() => inTeamOf(auth.getSnapshot().context.user?.team_role));
  return (
    <MembershipChart.Provider input={{ auth, inTeam }}>
      <FollowSignIn />
      {children}
    </MembershipChart.Provider>
  );
}

/**
 * On each sign-in: the user the auth chart holds says the membership when it came from
 * `GET /users/me` (a restored session: `team_role` is there, `null` outside a team), so the bar asks
 * nothing more; a sign-in's answer does not say it, and the chart asks. Signing out forgets it.
 */
function FollowSignIn() {
  const membership = MembershipChart.useActorRef();
  const userId = useAuthSelector((s) => (s.hasTag('signedIn') ? (s.context.user?.id ?? null) : null));
  const inTeam = useAuthSelector((s) => inTeamOf(s.context.user?.team_role));
  useEffect(() => {
    if (!userId) membership.send({ type: 'membership.forget' });
    else if (inTeam === undefined) membership.send({ type: 'membership.check' });
    else membership.send({ type: 'membership.known', inTeam });
  }, [membership, userId, inTeam]);
  return null;
}

/** For a page's chart effects: what the page learned of the person's membership. */
export function useMembershipKnown(): (inTeam: boolean) => void {
  const membership = MembershipChart.useActorRef();
  return useCallback((inTeam) => membership.send({ type: 'membership.known', inTeam }), [membership]);
}

/** For a page that shows the Team plan: a paid Team checkout makes its payer a team's owner (the chart asks unless already known). */
export function useTeamPlanSeen(): () => void {
  const membership = MembershipChart.useActorRef();
  return useCallback(() => membership.send({ type: 'membership.teamPlanSeen' }), [membership]);
}

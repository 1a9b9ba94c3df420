import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as messages from '../../src/content/messages';
import type { User } from '../../machines/shared/api';
import { ada, signedInApi, type Handler, type Reply } from '../helpers/fakeApi';
import { freeSubscription } from '../helpers/fixtures';
import { renderApp } from '../helpers/renderApp';

/**
 * The top bar links the team page for team members (decisions.md), whatever their plan: what
 * counts is the `team_role` that `GET /users/me` answers (not `GET /teams/me`, whose 404 for someone in
 * no team the browser would log as an error). It is learned once per sign-in (from the call that
 * restores a stored session, or asked after signing in), not on every page, and
 * joining or leaving shows at once: the invitation, the team page and a paid Team checkout say so.
 */

const t = messages.layout;
const myTeam = {
  team: { id: 't-1', name: 'Ada Lovelace’s team', created_at: '2026-11-01T09:00:00.000Z', seat_limit: 10, seats_used: 2, plan_status: 'active', default_monthly_query_cap: null },
  role: 'member',
  own_paid_plan: null,
};
/** What the pages opened here ask besides. */
const pages: Record<string, Handler> = { 'GET /subscription/me': { status: 200, body: freeSubscription } };
/** `GET /users/me` for Ada in the team, and in none. */
const inTeam: Handler = { status: 200, body: { ...ada, team_role: 'member' } };
const notInTeam: Handler = { status: 200, body: { ...ada, team_role: null } };
/** `GET /teams/me`, which the team page itself loads. */
const teamPage: Handler = { status: 200, body: myTeam };
const notInTeamPage: Handler = { status: 404, body: { error: { code: 'not_in_team', message: 'You are not in a team.' } } };

const teamSubscription = { ...freeSubscription, plan: 'team', usage_limits: { monthly_queries: -1, daily_tokens: 200_000 } };
const adaAsMember = {
  user_id: ada.id,
  full_name: ada.full_name,
  email: ada.email,
  role: 'member',
  joined_at: '2026-11-02T09:00:00.000Z',
  last_active_at: null,
  month_queries: 0,
  day_tokens: 0,
  monthly_query_cap: null,
};
/** What the dashboard (where leaving the team leads) asks. */
const dashboardPage: Record<string, Handler> = {
  'GET /query/usage': { status: 200, body: { monthly_queries: 0, daily_tokens: 0, queries_per_minute: 0, processing_time: 0, total_queries: 0 } },
  'GET /query/usage/daily': { status: 200, body: { days: [] } },
};

let api: ReturnType<typeof signedInApi>;
afterEach(() => api.restore());

const nav = () => within(screen.getByRole('navigation', { name: t.mainNav }));
/**
 * Waits until the bar shows the account links (the stored session restored by `GET /users/me`, whose
 * answer says the membership too), then answers whether Team is among them.
 */
async function teamLinkShown(): Promise<boolean> {
  await waitFor(() => expect(nav().getByRole('link', { name: t.dashboard })).toBeInTheDocument());
  await act(async () => undefined);
  return nav().queryByRole('link', { name: t.team }) !== null;
}

describe('the Team link in the top bar', () => {
  it('shows for a team member on the Free plan of their own account', async () => {
    api = signedInApi(pages, { ...ada, subscription_plan: 'free', team_role: 'member' });
    renderApp('/profile');
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toHaveAttribute('href', '/team'));
  });

  it('does not show for someone on the Team plan who is in no team', async () => {
    api = signedInApi(pages, { ...ada, subscription_plan: 'team', team_role: null });
    renderApp('/profile');
    expect(await teamLinkShown()).toBe(false);
  });

  it('is asked once per sign-in, not again on every page', async () => {
    api = signedInApi({ ...pages, 'GET /users/me': inTeam }, ada);
    const { router } = renderApp('/profile');
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toBeInTheDocument());
    await act(() => router.navigate('/subscription'));
    await act(() => router.navigate('/profile'));
    await act(() => router.navigate('/subscription'));
    expect(nav().getByRole('link', { name: t.team })).toBeInTheDocument();
    // The one that restores the stored session says the membership too: none for the pages opened after.
    expect(api.sent('GET /users/me')).toHaveLength(1);
  });

  it('shows as soon as an invitation is accepted', async () => {
    api = signedInApi(
      {
        ...pages,
        'GET /users/me': notInTeam,
        'GET /teams/me': notInTeamPage,
        'GET /invitations/tok-1': { status: 200, body: { team_name: myTeam.team.name, inviter_name: 'Ada Lovelace', email: ada.email, role: 'member', expires_at: '2026-12-01T09:00:00.000Z' } },
        'POST /invitations/tok-1/accept': { status: 200, body: { team: myTeam.team, role: 'member' } },
        // The team page it goes on to cannot load: the link comes from the acceptance itself.
        'GET /teams/me/members': { status: 500, body: { error: { code: 'internal', message: 'Something went wrong.' } } },
      },
      ada,
    );
    renderApp('/invite/tok-1');
    expect(await teamLinkShown()).toBe(false);
    await userEvent.click(await screen.findByRole('button', { name: messages.invitation.accept }));
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toHaveAttribute('href', '/team'));
  });

  it('goes as soon as the person leaves the team on the team page', async () => {
    let member = true;
    api = signedInApi(
      {
        ...pages,
        'GET /users/me': () => (member ? inTeam : notInTeam),
        'GET /teams/me': () => (member ? teamPage : notInTeamPage),
        'GET /teams/me/members': { status: 200, body: { members: [adaAsMember] } },
        [`DELETE /teams/me/members/${ada.id}`]: () => ((member = false), { status: 204 }),
        ...dashboardPage,
      } as Record<string, Handler>,
      ada,
    );
    renderApp('/team');
    await userEvent.click(await screen.findByRole('button', { name: messages.team.leave }));
    await userEvent.click(screen.getByRole('button', { name: messages.team.confirm }));
    await waitFor(() => expect(nav().queryByRole('link', { name: t.team })).toBeNull());
  });

  it('goes when the team page finds the person removed by an admin', async () => {
    let member = true;
    api = signedInApi(
      { ...pages, 'GET /users/me': () => (member ? inTeam : notInTeam), 'GET /teams/me': () => (member ? teamPage : notInTeamPage) } as Record<string, Handler>,
      ada,
    );
    const { router } = renderApp('/profile');
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toBeInTheDocument());
    member = false;
    await act(() => router.navigate('/team'));
    await screen.findByRole('heading', { name: messages.team.offerHeading });
    await waitFor(() => expect(nav().queryByRole('link', { name: t.team })).toBeNull());
  });

  it('shows once the subscription page shows a paid Team checkout: its payer owns a team now', async () => {
    let paid = false;
    api = signedInApi(
      {
        'GET /subscription/me': () => ({ status: 200, body: paid ? teamSubscription : freeSubscription }),
        'GET /users/me': () => (paid ? { ...inTeam, body: { ...ada, team_role: 'owner' } } : notInTeam),
      } as Record<string, Handler>,
      ada,
    );
    const { router } = renderApp('/subscription');
    expect(await teamLinkShown()).toBe(false);
    paid = true;
    await act(() => router.navigate('/subscription?checkout=success'));
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toHaveAttribute('href', '/team'));
  });

  it('starts unknown for the next person who signs in: no Team link while their check is on its way', async () => {
    let release: (reply: Reply) => void = () => undefined;
    const grace: User = { ...ada, id: 'u-2', email: 'grace@example.com', full_name: 'Grace Hopper', username: 'grace' };
    api = signedInApi(
      {
        ...pages,
        // Ada's session is in a team; Grace's check hangs until released.
        'GET /users/me': (request) =>
          request.authorization === 'Bearer access-1' ? inTeam : new Promise<Reply>((resolve) => (release = resolve)),
        'POST /auth/logout': { status: 204 },
        'POST /auth/login/email': { status: 200, body: { access_token: 'access-2', refresh_token: 'refresh-2', user: grace } },
      },
      ada,
    );
    const { router } = renderApp('/profile');
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toBeInTheDocument());
    await userEvent.click(screen.getAllByRole('button', { name: t.logout })[0]!);
    await waitFor(() => expect(nav().queryByRole('link', { name: t.dashboard })).toBeNull());
    await act(() => router.navigate('/login'));
    await userEvent.type(await screen.findByLabelText(new RegExp(`^${messages.login.email}`)), grace.email);
    await userEvent.type(screen.getByLabelText(new RegExp(`^${messages.login.password}`)), 'Analytical-Engine-1843');
    await userEvent.click(screen.getByRole('button', { name: messages.login.submit }));
    await waitFor(() => expect(nav().getByRole('link', { name: t.dashboard })).toBeInTheDocument());
    await waitFor(() => expect(api.sent('GET /users/me').filter((request) => request.authorization === 'Bearer access-2')).toHaveLength(1));
    expect(nav().queryByRole('link', { name: t.team })).toBeNull();
    await act(async () => release({ status: 200, body: { ...grace, team_role: null } }));
    expect(nav().queryByRole('link', { name: t.team })).toBeNull();
  });
});

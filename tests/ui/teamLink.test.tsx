import { act, screen, waitFor, within } from '@testing-library/react';
import * as messages from '../../src/content/messages';
import { ada, signedInApi, type Handler } from '../helpers/fakeApi';
import { freeSubscription } from '../helpers/fixtures';
import { renderApp } from '../helpers/renderApp';

/**
 * The top bar links the team page for team members (decisions.md), whatever their plan: what
 * counts is that `GET /teams/me` answers, asked again on every navigation so joining or leaving
 * shows on the next page.
 */

const t = messages.layout;
const myTeam = {
  team: { id: 't-1', name: 'Ada Lovelace’s team', created_at: '2026-11-01T09:00:00.000Z', seat_limit: 10, seats_used: 2, plan_status: 'active', default_monthly_query_cap: null },
  role: 'member',
  own_paid_plan: null,
};
/** What the pages opened here ask besides. */
const pages: Record<string, Handler> = { 'GET /subscription/me': { status: 200, body: freeSubscription } };
const inTeam: Handler = { status: 200, body: myTeam };
const notInTeam: Handler = { status: 404, body: { error: { code: 'not_in_team', message: 'You are not in a team.' } } };

let api: ReturnType<typeof signedInApi>;
afterEach(() => api.restore());

const nav = () => within(screen.getByRole('navigation', { name: t.mainNav }));
/** Waits until the bar shows the account links, then answers whether Team is among them. */
async function teamLinkShown(): Promise<boolean> {
  await waitFor(() => expect(nav().getByRole('link', { name: t.dashboard })).toBeInTheDocument());
  await waitFor(() => expect(api.sent('GET /teams/me').length).toBeGreaterThan(0));
  await act(async () => undefined);
  return nav().queryByRole('link', { name: t.team }) !== null;
}

describe('the Team link in the top bar', () => {
  it('shows for a team member on the Free plan of their own account', async () => {
    api = signedInApi({ ...pages, 'GET /teams/me': inTeam }, { ...ada, subscription_plan: 'free' });
    renderApp('/profile');
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toHaveAttribute('href', '/team'));
  });

  it('does not show for someone on the Team plan who is in no team', async () => {
    api = signedInApi({ ...pages, 'GET /teams/me': notInTeam }, { ...ada, subscription_plan: 'team' });
    renderApp('/profile');
    expect(await teamLinkShown()).toBe(false);
  });

  it('follows joining and leaving from the next page on', async () => {
    let member = false;
    api = signedInApi({ ...pages, 'GET /teams/me': () => (member ? inTeam : notInTeam) } as Record<string, Handler>, ada);
    const { router } = renderApp('/profile');
    expect(await teamLinkShown()).toBe(false);
    member = true;
    await act(() => router.navigate('/subscription'));
    await waitFor(() => expect(nav().getByRole('link', { name: t.team })).toBeInTheDocument());
    member = false;
    await act(() => router.navigate('/profile'));
    await waitFor(() => expect(nav().queryByRole('link', { name: t.team })).toBeNull());
  });
});

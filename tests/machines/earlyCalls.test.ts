import { createActor } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import { dashboardMachine, partStatus } from '../../machines/dashboard/dashboard.machine';
import { subscriptionMachine } from '../../machines/subscription/subscription.machine';
import { usageMachine, usageStatus } from '../../machines/usage/usage.machine';
import { presetRange, utcThisMonth, utcToday } from '../../machines/usage/usage.range';
import { functionsMachine } from '../../machines/functions/functions.machine';
import { teamMachine } from '../../machines/team/team.machine';
import { credentialsMachine } from '../../machines/credentials/credentials.machine';
import { passkeysMachine } from '../../machines/passkeys/passkeys.machine';
import { twoFactorMachine } from '../../machines/twoFactor/twoFactor.machine';
import { accountApi, ApiRequestError, authApi } from '../../machines/shared/api';
import { fixKnownAnswers, startEarlyCall, startEarlyCallsAfter } from '../../machines/shared/earlyCalls';
import { teamPaths } from '../../machines/team/team.calls';
import type { TeamRole } from '../../machines/shared/api';
import { tokenStorage } from '../../machines/shared/tokenStorage';
import { ada, installFakeApi } from '../helpers/fakeApi';

/**
 * The HTTP client answers a chart's call with the answer of the same call the page sent early
 * (machines/shared/earlyCalls.ts): only a GET of that address, with the same token, once, and as
 * axios would have answered it, failures too, so a 401 still refreshes and retries.
 */

const early = (url: string, token: string, response: Promise<Response>, { startedAt = Date.now(), uses = 1 } = {}) => {
  response.catch(() => undefined);
  window.sheetmindEarlyCalls ??= new Map();
  window.sheetmindEarlyCalls.set(url, { authorization: `Bearer ${token}`, startedAt, response, uses, read: response.then(() => undefined, () => undefined) });
};
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));

let api: ReturnType<typeof installFakeApi>;
beforeEach(() => {
  localStorage.clear();
  window.sheetmindEarlyCalls = new Map();
  window.sheetmindAppStarted = false;
  tokenStorage.write({ access_token: 'access-1', refresh_token: 'refresh-1' });
  api = installFakeApi({ 'GET /users/me': { status: 200, body: { ...ada, full_name: 'From the server' } } });
});
afterEach(() => api.restore());

describe('a call the page sent early', () => {
  it('answers the chart’s first call to its address with the same token, and the next one goes to the server', async () => {
    early('/api/v1/users/me', 'access-1', json(200, { ...ada, full_name: 'Sent early' }));
    expect((await authApi.me()).full_name).toBe('Sent early');
    expect(api.sent('GET /users/me')).toHaveLength(0);
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(1);
  });

  it('answers as many of the page’s calls as it was sent for, each reading the answer of its own', async () => {
    early('/api/v1/users/me', 'access-1', json(200, { ...ada, full_name: 'Sent early' }), { uses: 2 });
    const [first, second] = await Promise.all([authApi.me(), authApi.me()]);
    expect([first.full_name, second.full_name]).toEqual(['Sent early', 'Sent early']);
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(1);
  });

  it('is not given to a call with another token, nor once it is older than 30 seconds', async () => {
    early('/api/v1/users/me', 'access-0', json(200, { ...ada, full_name: 'Sent early' }));
    expect((await authApi.me()).full_name).toBe('From the server');
    early('/api/v1/users/me', 'access-1', json(200, { ...ada, full_name: 'Sent early' }), { startedAt: Date.now() - 31_000 });
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(2);
  });

  it('fails as the chart’s own call would: a 401 with its code, a 429 with its wait, a lost connection', async () => {
    early('/api/v1/users/me', 'access-1', json(401, { error: { code: 'token_expired', message: 'Your session has expired.' } }));
    await expect(authApi.me()).rejects.toMatchObject({ status: 401, code: 'token_expired' });
    early('/api/v1/subscription/me', 'access-1', json(429, { error: { code: 'rate_limited', message: 'Slow down.' } }, { 'retry-after': '7' }));
    await expect(accountApi.subscription()).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 7 });
    early('/api/v1/users/me', 'access-1', Promise.reject(new TypeError('Failed to fetch')));
    const lost = await authApi.me().catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(ApiRequestError);
    expect(lost).toMatchObject({ status: 0 });
  });
});

describe('a chart made once the early answers are in', () => {
  const usage = { monthly_queries: 42, daily_tokens: 1200, total_queries: 42 };
  const plan = { plan: 'team', status: 'active' };
  const days = [{ date: '2026-12-06', queries: 42, tokens: 1200 }];

  /**
   * Sends the page's early calls as src/firstCalls.ts does, the browser answering each with
   * `answers`, waits until they are read, and starts the app (src/app/mountApp.tsx).
   */
  async function sendEarly(answers: Record<string, Promise<Response>>, token = 'access-1') {
    window.fetch = jest.fn((url: string) => answers[url] ?? Promise.reject(new TypeError('Failed to fetch'))) as unknown as typeof fetch;
    for (const url of Object.keys(answers)) startEarlyCall(url, token);
    await new Promise((resolve) => setTimeout(resolve, 0));
    fixKnownAnswers();
  }
  afterEach(() => {
    delete (window as { fetch?: unknown }).fetch;
  });

  const startCharts = () => {
    const auth = createActor(authMachine);
    const dashboard = createActor(dashboardMachine, { input: { auth } });
    const subscription = createActor(subscriptionMachine, { input: { auth, accountPlan: 'free' } });
    return { auth, dashboard, subscription };
  };
  const parts = (dashboard: ReturnType<typeof startCharts>['dashboard']) =>
    (['usage', 'subscription', 'daily'] as const).map((part) => partStatus(dashboard.getSnapshot(), part));

  it('starts from them: signed in and the dashboard drawn with its data, no call sent; the next calls go to the server', async () => {
    await sendEarly({
      '/api/v1/users/me': json(200, { ...ada, full_name: 'Sent early', team_role: 'owner' }),
      '/api/v1/query/usage': json(200, usage),
      '/api/v1/subscription/me': json(200, plan),
      '/api/v1/query/usage/daily': json(200, { days }),
    });
    const { auth, dashboard, subscription } = startCharts();
    // Before the actors start, their first snapshots are the answered ones: what React's first render draws.
    expect(auth.getSnapshot().hasTag('signedIn')).toBe(true);
    expect(auth.getSnapshot().context.user?.full_name).toBe('Sent early');
    expect(parts(dashboard)).toEqual(['ready', 'ready', 'ready']);
    expect(dashboard.getSnapshot().hasTag('holding')).toBe(false);
    expect(dashboard.getSnapshot().context.data).toEqual({ usage, subscription: plan, daily: days });
    // So does the subscription page's (and the profile's) chart.
    expect(subscription.getSnapshot().matches('loaded')).toBe(true);
    expect(subscription.getSnapshot().context.subscription).toEqual(plan);
    auth.start();
    dashboard.start();
    // The dashboard spent the plan's answer as it started: a chart made now asks.
    expect(startCharts().subscription.getSnapshot().hasTag('loading')).toBe(true);
    expect(dashboard.getSnapshot().hasTag('loading')).toBe(false);
    expect(window.fetch).toHaveBeenCalledTimes(4);
    expect(['GET /users/me', 'GET /query/usage', 'GET /subscription/me', 'GET /query/usage/daily'].flatMap((call) => api.sent(call))).toEqual([]);
    // The role the session check answered is remembered for the team page's first calls, as after the call itself.
    expect(tokenStorage.readTeamRole()).toBe('owner');
    // Spent: asked again, each goes to the server.
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(1);
    auth.stop();
    dashboard.stop();
  });

  it('starts the usage and functions pages’ charts from theirs too: figures or an empty range, the list and the role', async () => {
    const today = utcToday();
    const range = presetRange('last30', today);
    const analytics = (queries: number) => ({ days: [{ date: range.to, queries, tokens: queries * 10 }] });
    const list = { functions: [{ id: 'f1', name: 'SUMMARY', task: 'analyze', prompt: 'Sum it up', description: '', scope: 'team' }] };
    await sendEarly({
      '/api/v1/users/me': json(200, { ...ada, team_role: 'admin' }),
      [`/api/v1/usage/analytics?${new URLSearchParams({ ...range })}`]: json(200, analytics(3)),
      '/api/v1/functions': json(200, list),
    });
    window.sheetmindEarlyCalls!.get('/api/v1/users/me')!.uses = 2;
    const auth = createActor(authMachine);
    const usage = createActor(usageMachine, { input: { auth, today } });
    expect(usageStatus(usage.getSnapshot())).toBe('loaded');
    expect(usage.getSnapshot().context.data).toEqual(analytics(3));
    const functions = createActor(functionsMachine, { input: { auth } });
    expect(functions.getSnapshot().value).toBe('idle');
    expect(functions.getSnapshot().context).toMatchObject({ ...list, teamRole: 'admin' });
    auth.start();
    functions.start();
    // The auth chart and the functions chart each spent one of the two uses of the session check's answer.
    expect(window.sheetmindEarlyCalls!.has('/api/v1/users/me')).toBe(false);
    usage.start();
    expect(createActor(usageMachine, { input: { auth, today } }).getSnapshot().hasTag('loading')).toBe(true);
    [auth, usage, functions].forEach((actor) => actor.stop());

    // A range with no query in it starts as the empty page.
    await sendEarly({ [`/api/v1/usage/analytics?${new URLSearchParams({ ...range })}`]: json(200, analytics(0)) });
    expect(usageStatus(createActor(usageMachine, { input: { auth, today } }).getSnapshot())).toBe('empty');
  });

  it('starts the team page’s chart from the team and every call its role makes; a role they were not sent for, or another month, loads', async () => {
    const month = '2026-12';
    const team = { id: 't1', name: 'Analysts', plan: 'team', owner_id: 'u0', default_monthly_query_cap: null };
    const members = { members: [{ user_id: 'u1', full_name: 'Ada Lovelace', email: 'ada@example.com', role: 'admin' }] };
    const invitations = { invitations: [] };
    const teamUsage = { month, days: [], by_task: [], members: [] };
    const audit = { events: [], next: null };
    const adminCalls = {
      '/api/v1/teams/me': json(200, { team, role: 'admin', own_paid_plan: null }),
      '/api/v1/teams/me/members': json(200, members),
      '/api/v1/teams/me/invitations': json(200, invitations),
      [`/api/v1/teams/me/usage?month=${month}`]: json(200, teamUsage),
      '/api/v1/teams/me/audit-log': json(200, audit),
    };
    await sendEarly(adminCalls);
    const auth = createActor(authMachine);
    const startTeam = (input = { auth, userId: 'u1', month }) => createActor(teamMachine, { input });
    const admin = startTeam();
    expect(admin.getSnapshot().matches('ready')).toBe(true);
    expect(admin.getSnapshot().context.data).toEqual({ team, role: 'admin', ownPaidPlan: null, members: members.members, invitations: [], usage: teamUsage, audit, held: null });
    // Made for another month, the usage is not the one sent early: the chart loads.
    expect(startTeam({ auth, userId: 'u1', month: '2026-11' }).getSnapshot().hasTag('loading')).toBe(true);
    admin.start();
    expect(window.sheetmindEarlyCalls!.size).toBe(0);
    expect(tokenStorage.readTeamRole()).toBe('admin');
    admin.stop();

    // A member's page asks the members only.
    await sendEarly({ '/api/v1/teams/me': json(200, { team, role: 'member', own_paid_plan: 'pro' }), '/api/v1/teams/me/members': json(200, members) });
    expect(startTeam().getSnapshot().context.data).toMatchObject({ role: 'member', ownPaidPlan: 'pro', members: members.members, invitations: null, usage: null, audit: null });
    // Made an admin since the calls were sent for a member: the admin's parts are not in, so it loads.
    window.sheetmindEarlyCalls = new Map();
    await sendEarly({ '/api/v1/teams/me': json(200, { team, role: 'admin', own_paid_plan: null }), '/api/v1/teams/me/members': json(200, members) });
    expect(startTeam().getSnapshot().hasTag('loading')).toBe(true);
  });

  it('on a first visit to the team page, sends the calls of the role the team’s answer gives as soon as it is in, and the chart starts from them; not once the app has started', async () => {
    const month = utcThisMonth();
    const team = { id: 't1', name: 'Analysts', plan: 'team', owner_id: 'u0', default_monthly_query_cap: null };
    const members = { members: [{ user_id: 'u1', full_name: 'Ada Lovelace', email: 'ada@example.com', role: 'owner' }] };
    const answers: Record<string, Promise<Response>> = {
      '/api/v1/teams/me': json(200, { team, role: 'owner', own_paid_plan: null }),
      '/api/v1/teams/me/members': json(200, members),
      '/api/v1/teams/me/invitations': json(200, { invitations: [] }),
      [`/api/v1/teams/me/usage?month=${month}`]: json(200, { month, days: [], by_task: [], members: [] }),
      '/api/v1/teams/me/audit-log': json(200, { events: [], next: null }),
    };
    const roleCalls = (body: unknown) => Object.values(teamPaths((body as { role: TeamRole }).role, month)).map((path) => `/api/v1${path}`);
    window.fetch = jest.fn((url: string) => answers[url] ?? Promise.reject(new TypeError('Failed to fetch'))) as unknown as typeof fetch;
    // As src/firstCalls.ts does with no role stored: the team alone, then what its answer's role asks.
    startEarlyCall('/api/v1/teams/me', 'access-1');
    startEarlyCallsAfter('/api/v1/teams/me', 'access-1', roleCalls);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([...window.sheetmindEarlyCalls!.keys()].sort()).toEqual(Object.keys(answers).sort());
    await new Promise((resolve) => setTimeout(resolve, 0));
    fixKnownAnswers();
    const auth = createActor(authMachine);
    const owner = createActor(teamMachine, { input: { auth, userId: 'u1', month } });
    expect(owner.getSnapshot().matches('ready')).toBe(true);
    expect(owner.getSnapshot().context.data).toMatchObject({ role: 'owner', members: members.members, invitations: [] });
    owner.start();
    expect(window.sheetmindEarlyCalls!.size).toBe(0);
    expect(window.fetch).toHaveBeenCalledTimes(5);
    owner.stop();

    // The team answered after the app had started: the chart asks for the rest itself, and nothing is sent twice.
    let answerTeam: (response: Response) => void = () => undefined;
    answers['/api/v1/teams/me'] = new Promise<Response>((resolve) => (answerTeam = resolve));
    startEarlyCall('/api/v1/teams/me', 'access-1');
    startEarlyCallsAfter('/api/v1/teams/me', 'access-1', roleCalls);
    fixKnownAnswers();
    answerTeam(new Response(JSON.stringify({ team, role: 'owner', own_paid_plan: null }), { status: 200 }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([...window.sheetmindEarlyCalls!.keys()]).toEqual(['/api/v1/teams/me']);
    expect(window.fetch).toHaveBeenCalledTimes(6);
  });

  it('starts the profile’s sessions and API keys from theirs: both lists, or it loads while one is missing', async () => {
    const sessions = { sessions: [{ id: 's1', current: true, user_agent: 'Firefox', ip: '127.0.0.1', created_at: '2026-12-06T10:00:00Z', last_used_at: '2026-12-06T10:00:00Z' }] };
    const keys = { api_keys: [{ id: 'k1', name: 'Sheets', prefix: 'sm_live_ab12', created_at: '2026-12-06T10:00:00Z', last_used_at: null }] };
    await sendEarly({ '/api/v1/sessions': json(200, sessions) });
    const auth = createActor(authMachine);
    expect(createActor(credentialsMachine, { input: { auth } }).getSnapshot().hasTag('loading')).toBe(true);
    await sendEarly({ '/api/v1/api-keys': json(200, keys) });
    const credentials = createActor(credentialsMachine, { input: { auth } });
    expect(credentials.getSnapshot().value).toBe('idle');
    expect(credentials.getSnapshot().context).toMatchObject({ sessions: sessions.sessions, apiKeys: keys.api_keys });
    credentials.start();
    expect(window.sheetmindEarlyCalls!.size).toBe(0);
    credentials.stop();
  });

  it('starts the profile’s two-step sign-in and passkeys from theirs, or loads while one is missing', async () => {
    const status = { totp_enabled: true, totp_enabled_at: '2026-12-01T10:00:00Z', recovery_codes_left: 9, passkeys: 1 };
    const passkeys = { credentials: [{ id: 'p1', name: 'Laptop', created_at: '2026-12-01T10:00:00Z', last_used_at: null }] };
    await sendEarly({ '/api/v1/mfa': json(200, status) });
    const auth = createActor(authMachine);
    expect(createActor(passkeysMachine, { input: { auth } }).getSnapshot().hasTag('loading')).toBe(true);
    const twoFactor = createActor(twoFactorMachine, { input: { auth } });
    expect(twoFactor.getSnapshot().value).toBe('ready');
    expect(twoFactor.getSnapshot().context.status).toEqual(status);
    twoFactor.start();
    expect(createActor(twoFactorMachine, { input: { auth } }).getSnapshot().hasTag('loading')).toBe(true);
    twoFactor.stop();
    await sendEarly({ '/api/v1/webauthn/credentials': json(200, passkeys) });
    const list = createActor(passkeysMachine, { input: { auth } });
    expect(list.getSnapshot().value).toBe('idle');
    expect(list.getSnapshot().context.passkeys).toEqual(passkeys.credentials);
    list.start();
    expect(window.sheetmindEarlyCalls!.size).toBe(0);
    list.stop();
  });

  it('does not spend them while its actor is not started (a render React drops): the next one made starts from them too', async () => {
    await sendEarly({ '/api/v1/users/me': json(200, { ...ada, full_name: 'Sent early' }) });
    expect(startCharts().auth.getSnapshot().hasTag('signedIn')).toBe(true);
    const { auth } = startCharts();
    expect(auth.getSnapshot().hasTag('signedIn')).toBe(true);
    auth.start();
    expect((await authApi.me()).full_name).toBe('From the server');
    auth.stop();
  });

  it('asks as before when an answer failed, is still on its way, or was made with another token', async () => {
    let answerUsage: (response: Response) => void = () => undefined;
    await sendEarly({
      '/api/v1/users/me': json(401, { error: { code: 'token_expired', message: 'Your session has expired.' } }),
      '/api/v1/query/usage': new Promise<Response>((resolve) => (answerUsage = resolve)),
      '/api/v1/subscription/me': json(200, plan),
    });
    tokenStorage.write({ access_token: 'access-1', refresh_token: 'refresh-1' });
    const { auth, dashboard } = startCharts();
    expect(auth.getSnapshot().hasTag('loading')).toBe(true);
    expect(parts(dashboard)).toEqual(['loading', 'ready', 'loading']);
    // Come after the app started, it answers the chart's call instead: the page drew its
    // placeholders already, and what it needs drawn first was got ready for what was known then.
    answerUsage(new Response(JSON.stringify(usage), { status: 200 }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(parts(startCharts().dashboard)).toEqual(['loading', 'ready', 'loading']);
    expect(await accountApi.usage()).toEqual(usage);
    expect(api.sent('GET /query/usage')).toHaveLength(0);
    // Another token (a sign-in since): nothing the page sent before is started from.
    tokenStorage.write({ access_token: 'access-2', refresh_token: 'refresh-2' });
    expect(parts(startCharts().dashboard)).toEqual(['loading', 'loading', 'loading']);
  });
});

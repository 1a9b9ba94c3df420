// Over 300 lines: every rule of decisions.md's team workspace (roles, invitations, seats, owner
// transfer, caps, bad input) against the calls, on both engines with one test app per engine.
import { TEAM_SEAT_LIMIT } from '../../contract/plans';
import { freeSubscription } from '../helpers/fixtures';
import { cancelAtPeriodEnd, invitationToken, join, payFor, signIn, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, post, register, useTestApp } from '../helpers/testApp';

describe.each(ENGINES)('team workspaces on %s', (engine) => {
  const ctx = useTestApp(engine);

  const call = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST' | 'PUT', url: string, who: Account, payload?: object) =>
    ctx.app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.access_token), ...(payload ? { payload } : {}) });
  const invite = (who: Account, email: string, role = 'member') => call('POST', '/teams/me/invitations', who, { email, role });
  const errorOf = (res: { json(): { error: { code: string; message: string; field?: string } } }) => res.json().error;
  const plan = async (who: Account) => ({
    subscription: (await call('GET', '/subscription/me', who)).json().plan,
    badge: (await call('GET', '/users/me', who)).json().subscription_plan,
  });
  const auditActions = async (who: Account) => (await call('GET', '/teams/me/audit-log', who)).json().events.map((event: { action: string }) => event.action);

  describe('the team of a paid Team checkout', () => {
    it('is created with its owner, named after them, with one seat used and the Team plan running', async () => {
      const owner = await teamOwner(ctx, { full_name: 'Ada Lovelace' });
      const res = await call('GET', '/teams/me', owner);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ role: 'owner', team: { name: 'Ada Lovelace’s team', seat_limit: TEAM_SEAT_LIMIT, seats_used: 1, plan_status: 'active' } });
      expect(await auditActions(owner)).toEqual(['team.created']);
    });

    it('is not made for a Professional checkout; someone in no team gets 404 not_in_team', async () => {
      const pro = await register(ctx.app);
      await payFor(ctx, pro, 'professional');
      const res = await call('GET', '/teams/me', pro);
      expect(res.statusCode).toBe(404);
      expect(errorOf(res).code).toBe('not_in_team');
      expect((await call('GET', '/teams/me/members', pro)).statusCode).toBe(404);
    });
  });

  describe("the caller's team role on GET /users/me (what the app's top bar reads)", () => {
    it('is null in no team, then owner, admin or member as the team has them, and null again after leaving', async () => {
      const role = async (who: Account) => {
        const res = await call('GET', '/users/me', who);
        expect(res.statusCode).toBe(200);
        return res.json().team_role;
      };
      const owner = await register(ctx.app);
      expect(await role(owner)).toBeNull();
      await payFor(ctx, owner, 'team');
      const [member, admin] = [await register(ctx.app), await register(ctx.app)];
      await join(ctx, owner, member);
      await join(ctx, owner, admin, 'admin');
      expect({ owner: await role(owner), admin: await role(admin), member: await role(member) }).toEqual({ owner: 'owner', admin: 'admin', member: 'member' });
      expect((await call('DELETE', `/teams/me/members/${member.user.id}`, member)).statusCode).toBe(204);
      expect(await role(member)).toBeNull();
      // Only that call: the user in a sign-in answer and PUT /users/me's do not carry it.
      const login = await post(ctx.app, '/api/v1/auth/login/email', { email: owner.account.email, password: owner.account.password });
      expect(login.json().user).not.toHaveProperty('team_role');
      expect((await call('PUT', '/users/me', owner, { full_name: 'Ada Byron' })).json()).not.toHaveProperty('team_role');
    });
  });

  describe('invitations', () => {
    it('mail a single-use link that shows team, inviter and role, and joins the invited account with Team from its next request', async () => {
      const owner = await teamOwner(ctx, { full_name: 'Grace Hopper' });
      const member = await register(ctx.app);
      expect(await plan(member)).toEqual({ subscription: 'free', badge: 'free' });
      // The address as someone might type it: other case, spaces around.
      const sent = await invite(owner, `  ${member.account.email.toUpperCase()} `);
      expect(sent.statusCode).toBe(201);
      expect(sent.json()).toEqual({ id: expect.any(String), email: member.account.email, role: 'member', expires_at: new Date(ctx.clock.now() + 7 * 86_400_000).toISOString(), delivery: 'pending' });
      const mail = await ctx.mail.latestTo(member.account.email, 'team_invitation');
      expect(mail.subject).toBe('You are invited to join a team on SheetMind');
      expect(mail.text).toContain('Grace Hopper invited you to join the team "Grace Hopper’s team" on SheetMind as a member.');
      const token = await invitationToken(ctx, member.account.email);
      expect(mail.text).toContain(`${ctx.config.publicUrl}/invite/${token}`);
      // Stored only hashed.
      const stored = await ctx.app.database.db.selectFrom('team_invitations').select('token_hash').execute();
      expect(stored.map((row) => row.token_hash)).not.toContain(token);

      const preview = await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${token}` });
      expect(preview.statusCode).toBe(200);
      expect(preview.json()).toEqual({ team_name: 'Grace Hopper’s team', inviter_name: 'Grace Hopper', email: member.account.email, role: 'member', expires_at: sent.json().expires_at });

      const accepted = await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(member.access_token));
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toMatchObject({ role: 'member', team: { name: 'Grace Hopper’s team', seats_used: 2 } });
      expect(await plan(member)).toEqual({ subscription: 'team', badge: 'team' });
      expect((await call('GET', '/subscription/me', member)).json().usage_limits).toEqual({ monthly_queries: -1, daily_tokens: 200_000 });

      const again = await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(member.access_token));
      expect(again.statusCode).toBe(404);
      expect(errorOf(again).code).toBe('invalid_invitation');
      expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${token}` })).statusCode).toBe(404);
      expect((await auditActions(owner)).slice(0, 2)).toEqual(['member.joined', 'invitation.created']);
    });

    it('refuses another signed-in account with 403 invitation_email_mismatch, and the link still works for the right one', async () => {
      const owner = await teamOwner(ctx);
      const invited = await register(ctx.app);
      const someoneElse = await register(ctx.app);
      await invite(owner, invited.account.email);
      const token = await invitationToken(ctx, invited.account.email);
      const wrong = await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(someoneElse.access_token));
      expect(wrong.statusCode).toBe(403);
      expect(errorOf(wrong).code).toBe('invitation_email_mismatch');
      expect((await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(invited.access_token))).statusCode).toBe(200);
      expect((await post(ctx.app, `/api/v1/invitations/${token}/accept`, {})).statusCode).toBe(401);
    });

    it('lets someone without an account register with the invited address and then accept', async () => {
      const owner = await teamOwner(ctx);
      const email = `newcomer${Date.now()}@example.com`;
      await invite(owner, email, 'admin');
      const token = await invitationToken(ctx, email);
      expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${token}` })).json().role).toBe('admin');
      const newcomer = await register(ctx.app, { email });
      const accepted = await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(newcomer.access_token));
      expect(accepted.json().role).toBe('admin');
      expect((await call('GET', '/teams/me', newcomer)).json().role).toBe('admin');
    });

    it('answers 409 invitation_pending for a second invitation and already_in_team for someone in a team', async () => {
      const owner = await teamOwner(ctx);
      const otherOwner = await teamOwner(ctx);
      const invited = await register(ctx.app);
      expect((await invite(owner, invited.account.email)).statusCode).toBe(201);
      const twice = await invite(owner, invited.account.email.toUpperCase());
      expect(twice.statusCode).toBe(409);
      expect(errorOf(twice)).toMatchObject({ code: 'invitation_pending', field: 'email' });
      const taken = await invite(owner, otherOwner.account.email);
      expect(taken.statusCode).toBe(409);
      expect(errorOf(taken).code).toBe('already_in_team');

      // Someone who joined another team meanwhile cannot accept an older invitation.
      const token = await invitationToken(ctx, invited.account.email);
      await join(ctx, otherOwner, invited);
      const late = await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(invited.access_token));
      expect(late.statusCode).toBe(409);
      expect(errorOf(late).code).toBe('already_in_team');
    });

    it('resends with a new link (the old one dies), revokes, and lets links expire after 7 days', async () => {
      const owner = await teamOwner(ctx);
      const a = await register(ctx.app);
      const b = await register(ctx.app);
      const first = (await invite(owner, a.account.email)).json();
      const oldToken = await invitationToken(ctx, a.account.email);
      const resent = await call('POST', `/teams/me/invitations/${first.id}/resend`, owner);
      expect(resent.statusCode).toBe(200);
      const newToken = await invitationToken(ctx, a.account.email);
      expect(newToken).not.toBe(oldToken);
      expect(errorOf(await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${oldToken}` })).code).toBe('invalid_invitation');
      expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${newToken}` })).statusCode).toBe(200);

      const second = (await invite(owner, b.account.email)).json();
      const revokedToken = await invitationToken(ctx, b.account.email);
      expect((await call('GET', '/teams/me/invitations', owner)).json().invitations.map((i: { email: string }) => i.email)).toEqual([a.account.email, b.account.email]);
      expect((await call('DELETE', `/teams/me/invitations/${second.id}`, owner)).statusCode).toBe(204);
      expect((await call('DELETE', `/teams/me/invitations/${second.id}`, owner)).statusCode).toBe(404);
      const revoked = await post(ctx.app, `/api/v1/invitations/${revokedToken}/accept`, {}, bearer(b.access_token));
      expect(errorOf(revoked).code).toBe('invalid_invitation');
      expect((await call('GET', '/teams/me', owner)).json().team.seats_used).toBe(2);

      ctx.clock.advance(7 * 86_400_000);
      await signIn(ctx, owner);
      await signIn(ctx, a);
      expect(errorOf(await post(ctx.app, `/api/v1/invitations/${newToken}/accept`, {}, bearer(a.access_token))).code).toBe('invalid_invitation');
      expect((await call('GET', '/teams/me', owner)).json().team.seats_used).toBe(1);
      // An expired invitation no longer holds the address.
      expect((await invite(owner, a.account.email)).statusCode).toBe(201);
      expect(await auditActions(owner)).toEqual(expect.arrayContaining(['invitation.created', 'invitation.resent', 'invitation.revoked']));
    });

    it('refuses made-up and oversized tokens with 404 and 414, never a 5xx', async () => {
      expect(errorOf(await ctx.app.inject({ method: 'GET', url: '/api/v1/invitations/not-a-token' })).code).toBe('invalid_invitation');
      expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${'x'.repeat(600)}` })).statusCode).toBe(414);
    });
  });

  describe('seats', () => {
    it(`creates exactly 3 of 20 invitations sent at once to a team with 3 of ${TEAM_SEAT_LIMIT} seats left`, async () => {
      const owner = await teamOwner(ctx);
      const stamp = `${Date.now()}${engine}`;
      for (let i = 0; i < TEAM_SEAT_LIMIT - 4; i++) expect((await invite(owner, `held${i}.${stamp}@example.com`)).statusCode).toBe(201);
      expect((await call('GET', '/teams/me', owner)).json().team.seats_used).toBe(TEAM_SEAT_LIMIT - 3);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => invite(owner, `rush${i}.${stamp}@example.com`)));
      const statuses = answers.map((res) => res.statusCode);
      expect(statuses.filter((status) => status === 201)).toHaveLength(3);
      expect(statuses.filter((status) => status === 403)).toHaveLength(17);
      expect(answers.filter((res) => res.statusCode === 403).every((res) => errorOf(res).code === 'seat_limit_reached')).toBe(true);
      expect((await call('GET', '/teams/me', owner)).json().team.seats_used).toBe(TEAM_SEAT_LIMIT);
      expect((await call('GET', '/teams/me/invitations', owner)).json().invitations).toHaveLength(TEAM_SEAT_LIMIT - 1);
    });
  });

  describe('roles, checked on every request', () => {
    it('answers 403 forbidden to a member calling admin calls, and shows them names and their own usage only', async () => {
      const owner = await teamOwner(ctx);
      const member = await register(ctx.app);
      await join(ctx, owner, member);
      const month = new Date(ctx.clock.now()).toISOString().slice(0, 7);
      const refused = await Promise.all([
        call('PATCH', '/teams/me', member, { name: 'Mine now' }),
        invite(member, 'friend@example.com'),
        call('GET', '/teams/me/invitations', member),
        call('GET', `/teams/me/usage?month=${month}`, member),
        call('GET', `/teams/me/usage.csv?month=${month}`, member),
        call('GET', '/teams/me/audit-log', member),
        call('PATCH', `/teams/me/members/${owner.user.id}`, member, { monthly_query_cap: 1 }),
        call('DELETE', `/teams/me/members/${owner.user.id}`, member),
        call('POST', '/teams/me/transfer', member, { user_id: member.user.id }),
      ]);
      expect(refused.map((res) => [res.statusCode, errorOf(res).code])).toEqual(refused.map(() => [403, 'forbidden']));
      const members = (await call('GET', '/teams/me/members', member)).json().members;
      expect(members).toHaveLength(2);
      const ownerRow = members.find((m: { user_id: string }) => m.user_id === owner.user.id);
      expect(ownerRow).toMatchObject({ full_name: owner.account.full_name, role: 'owner', email: null, month_queries: null });
      expect(members.find((m: { user_id: string }) => m.user_id === member.user.id)).toMatchObject({ email: member.account.email, month_queries: 0 });
    });

    it('lets an admin invite, cap and remove members but not change roles or remove the owner; the owner cannot leave', async () => {
      const owner = await teamOwner(ctx);
      const admin = await register(ctx.app);
      const member = await register(ctx.app);
      await join(ctx, owner, admin, 'admin');
      await join(ctx, owner, member);
      const capped = await call('PATCH', `/teams/me/members/${member.user.id}`, admin, { monthly_query_cap: 5 });
      expect(capped.statusCode).toBe(200);
      expect(capped.json()).toMatchObject({ user_id: member.user.id, monthly_query_cap: 5 });
      expect(errorOf(await call('PATCH', `/teams/me/members/${member.user.id}`, admin, { role: 'admin' })).code).toBe('forbidden');
      const ownerGone = await call('DELETE', `/teams/me/members/${owner.user.id}`, admin);
      expect([ownerGone.statusCode, errorOf(ownerGone).code]).toEqual([403, 'forbidden']);
      const leaves = await call('DELETE', `/teams/me/members/${owner.user.id}`, owner);
      expect(leaves.statusCode).toBe(403);
      expect(errorOf(leaves).message).toBe('The owner cannot leave the team. Hand ownership to another member first.');
      expect(errorOf(await call('PATCH', `/teams/me/members/${owner.user.id}`, owner, { role: 'member' })).code).toBe('forbidden');

      expect((await call('PATCH', `/teams/me/members/${member.user.id}`, owner, { role: 'admin' })).json().role).toBe('admin');
      expect((await call('PATCH', `/teams/me/members/${member.user.id}`, owner, { role: 'member' })).json().role).toBe('member');
      expect((await call('DELETE', `/teams/me/members/${member.user.id}`, admin)).statusCode).toBe(204);
      expect(await plan(member)).toEqual({ subscription: 'free', badge: 'free' });
      expect((await call('GET', '/teams/me', member)).statusCode).toBe(404);
      expect((await auditActions(owner)).slice(0, 5)).toEqual(['member.removed', 'member.role_changed', 'member.role_changed', 'member.cap_changed', 'member.joined']);
    });

    it('lets a member leave, and nobody act on another team (404)', async () => {
      const owner = await teamOwner(ctx);
      const stranger = await teamOwner(ctx);
      const member = await register(ctx.app);
      await join(ctx, owner, member);
      const other = await call('DELETE', `/teams/me/members/${member.user.id}`, stranger);
      expect(other.statusCode).toBe(404);
      expect((await call('PATCH', `/teams/me/members/${member.user.id}`, stranger, { monthly_query_cap: 0 })).statusCode).toBe(404);
      const invitation = (await invite(owner, 'someone@example.com')).json();
      expect((await call('DELETE', `/teams/me/invitations/${invitation.id}`, stranger)).statusCode).toBe(404);
      expect((await call('DELETE', `/teams/me/members/${member.user.id}`, member)).statusCode).toBe(204);
      expect(await plan(member)).toEqual({ subscription: 'free', badge: 'free' });
      expect((await auditActions(owner))[0]).toBe('member.left');
    });

    it('hands ownership over: the owner becomes an admin; with transfers and removals at once the team keeps exactly one owner', async () => {
      const owner = await teamOwner(ctx);
      const [a, b, c] = [await register(ctx.app), await register(ctx.app), await register(ctx.app)];
      for (const who of [a, b, c]) await join(ctx, owner, who, 'admin');
      const moves = await Promise.all([
        call('POST', '/teams/me/transfer', owner, { user_id: a.user.id }),
        call('POST', '/teams/me/transfer', owner, { user_id: b.user.id }),
        call('DELETE', `/teams/me/members/${a.user.id}`, owner),
        call('DELETE', `/teams/me/members/${b.user.id}`, c),
        call('PATCH', `/teams/me/members/${a.user.id}`, owner, { role: 'member' }),
      ]);
      expect(moves.every((res) => res.statusCode < 500)).toBe(true);
      const members = (await call('GET', '/teams/me/members', c)).json().members as Array<{ role: string; user_id: string }>;
      expect(members.filter((m) => m.role === 'owner')).toHaveLength(1);
      expect(members.find((m) => m.user_id === owner.user.id)?.role).not.toBe('owner');
      expect(moves.filter((res, i) => i < 2 && res.statusCode === 204)).toHaveLength(1);
    });
  });

  describe('plan changes follow the team subscription', () => {
    it("puts members back on their own plan when the team's subscription ends at its period end; a member's own subscription stays theirs", async () => {
      const owner = await teamOwner(ctx);
      const free = await register(ctx.app);
      const pro = await register(ctx.app);
      await payFor(ctx, pro, 'professional');
      await join(ctx, owner, free);
      await join(ctx, owner, pro);
      expect(await plan(pro)).toEqual({ subscription: 'team', badge: 'team' });
      await cancelAtPeriodEnd(ctx, owner);
      expect((await call('GET', '/teams/me', owner)).json().team.plan_status).toBe('ending');
      const periodEnd = Date.parse((await call('GET', '/subscription/me', owner)).json().current_period_end);
      ctx.clock.time = periodEnd;
      for (const who of [owner, free, pro]) await signIn(ctx, who);
      expect(await plan(free)).toEqual({ subscription: 'free', badge: 'free' });
      expect((await call('GET', '/subscription/me', free)).json()).toEqual(freeSubscription);
      expect(await plan(pro)).toEqual({ subscription: 'professional', badge: 'professional' });
      expect((await call('GET', '/teams/me', free)).json().team.plan_status).toBe('ended');
    });
  });

  describe("a member's own paid plan", () => {
    it('is named by GET /teams/me (own_paid_plan) for a member who pays for one, and for nobody else', async () => {
      const owner = await teamOwner(ctx);
      const free = await register(ctx.app);
      const pro = await register(ctx.app);
      await payFor(ctx, pro, 'professional');
      await join(ctx, owner, free);
      await join(ctx, owner, pro, 'admin');
      const mine = async (who: Account) => (await call('GET', '/teams/me', who)).json();
      // The owner's subscription is the team's own.
      expect(await mine(owner)).toMatchObject({ role: 'owner', own_paid_plan: null });
      expect(await mine(free)).toMatchObject({ role: 'member', own_paid_plan: null });
      expect(await mine(pro)).toMatchObject({ role: 'admin', own_paid_plan: 'professional' });
      // Out of the team, it is simply their plan again.
      expect((await call('DELETE', `/teams/me/members/${pro.user.id}`, pro)).statusCode).toBe(204);
      expect((await call('GET', '/subscription/me', pro)).json().plan).toBe('professional');
    });

    it("is shown by GET /subscription/me beside the team's plan, and the plan changes act on it", async () => {
      const owner = await teamOwner(ctx);
      const free = await register(ctx.app);
      const pro = await register(ctx.app);
      await payFor(ctx, pro, 'professional');
      const ownPro = (await call('GET', '/subscription/me', pro)).json();
      await join(ctx, owner, free);
      await join(ctx, owner, pro);
      const subscription = async (who: Account) => (await call('GET', '/subscription/me', who)).json();

      // The member's Team has no period of its own; their own subscription keeps its period and billing.
      const proView = await subscription(pro);
      expect(proView).toMatchObject({ plan: 'team', current_period_end: null, usage_limits: { monthly_queries: -1 } });
      expect(proView.own).toEqual({ plan: 'professional', status: 'active', current_period_end: ownPro.current_period_end, cancel_at_period_end: false, scheduled_plan: null });
      expect((await subscription(free)).own).toEqual({ plan: 'free', status: 'active', current_period_end: null, cancel_at_period_end: false, scheduled_plan: null });
      // The owner's Team is their own subscription.
      expect(await subscription(owner)).not.toHaveProperty('own');

      // Their own Professional is theirs to end: at its period end, while the team's Team applies.
      await cancelAtPeriodEnd(ctx, pro);
      expect((await subscription(pro)).own).toMatchObject({ plan: 'professional', cancel_at_period_end: true, scheduled_plan: 'free' });
      expect((await subscription(pro)).plan).toBe('team');
      // A member cannot pay for a team of their own (they could never be in it), nor choose their own plan again.
      for (const who of [free, pro]) {
        const team = await post(ctx.app, '/api/v1/subscription/checkout', { plan: 'team' }, bearer(who.access_token));
        expect(team.statusCode).toBe(409);
        expect(errorOf(team).code).toBe('already_in_team');
      }
      expect(errorOf(await post(ctx.app, '/api/v1/subscription/checkout', { plan: 'free' }, bearer(free.access_token))).code).toBe('already_on_plan');
      // A member on Free may still buy Professional for themselves.
      expect((await post(ctx.app, '/api/v1/subscription/checkout', { plan: 'professional' }, bearer(free.access_token))).statusCode).toBe(200);
    });
  });

  describe('renames, caps and the audit log', () => {
    it('renames (admins), sets a default cap new members get, and logs who did it from which IP, newest first, paged', async () => {
      const owner = await teamOwner(ctx);
      const renamed = await ctx.app.inject({ method: 'PATCH', url: '/api/v1/teams/me', headers: bearer(owner.access_token), payload: { name: '  Ledger & Co, “Ops” 会计 ', default_monthly_query_cap: 20 }, remoteAddress: '203.0.113.7' });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toMatchObject({ name: 'Ledger & Co, “Ops” 会计', default_monthly_query_cap: 20 });
      const member = await register(ctx.app);
      await join(ctx, owner, member);
      const row = (await call('GET', '/teams/me/members', owner)).json().members.find((m: { user_id: string }) => m.user_id === member.user.id);
      expect(row.monthly_query_cap).toBe(20);

      for (let i = 0; i < 50; i++) await call('PATCH', '/teams/me', owner, { name: `Name ${i}` });
      const first = (await call('GET', '/teams/me/audit-log', owner)).json();
      expect(first.events).toHaveLength(50);
      expect(first.events[0]).toMatchObject({ action: 'team.renamed', actor: { user_id: owner.user.id, name: owner.account.full_name }, target: { name: 'Name 49', detail: 'Name 48' } });
      expect(first.next).toBe(first.events[49].id);
      const second = (await call('GET', `/teams/me/audit-log?before=${first.next}`, owner)).json();
      expect(second.events.map((event: { action: string }) => event.action)).toEqual([
        'team.renamed', 'member.joined', 'invitation.created', 'team.default_cap_changed', 'team.renamed', 'team.created',
      ].slice(-second.events.length));
      const renameEvent = second.events.find((event: { action: string; target: { name: string } | null }) => event.action === 'team.renamed' && event.target?.name === 'Ledger & Co, “Ops” 会计');
      expect(renameEvent).toMatchObject({ ip: '203.0.113.7', actor: { user_id: owner.user.id } });
      expect(second.next).toBeNull();
    });

    it('offers no call that changes the audit log', async () => {
      const owner = await teamOwner(ctx);
      const [event] = (await call('GET', '/teams/me/audit-log', owner)).json().events;
      for (const method of ['PATCH', 'PUT', 'DELETE', 'POST'] as const) {
        expect((await call(method, '/teams/me/audit-log', owner, {})).statusCode).toBe(404);
        expect((await call(method, `/teams/me/audit-log/${event.id}`, owner, {})).statusCode).toBe(404);
      }
      expect((await call('GET', '/teams/me/audit-log', owner)).json().events).toEqual([event]);
    });
  });

  describe('bad input answers 400 naming the field', () => {
    it.each([
      ['PATCH', '/teams/me/members/{member}', { role: 'owner' }, 'role'],
      ['PATCH', '/teams/me/members/{member}', { role: 'superuser' }, 'role'],
      ['PATCH', '/teams/me/members/{member}', { monthly_query_cap: -1 }, 'monthly_query_cap'],
      ['PATCH', '/teams/me/members/{member}', { monthly_query_cap: 1.5 }, 'monthly_query_cap'],
      ['PATCH', '/teams/me/members/{member}', { monthly_query_cap: '5' }, 'monthly_query_cap'],
      ['PATCH', '/teams/me', { default_monthly_query_cap: -3 }, 'default_monthly_query_cap'],
      ['PATCH', '/teams/me', { name: 'x'.repeat(101) }, 'name'],
      ['PATCH', '/teams/me', { name: 'n'.repeat(10_000) }, 'name'],
      ['PATCH', '/teams/me', { name: '   ' }, 'name'],
      ['POST', '/teams/me/invitations', { email: 'not-an-address', role: 'member' }, 'email'],
      ['POST', '/teams/me/invitations', { email: 'a@example.com', role: 'owner' }, 'role'],
      ['POST', '/teams/me/transfer', {}, 'user_id'],
      ['GET', '/teams/me/usage?month=2026-13', undefined, 'month'],
      ['GET', '/teams/me/usage?month=26-11', undefined, 'month'],
      ['GET', '/teams/me/usage?month=2099-01', undefined, 'month'],
      ['GET', '/teams/me/usage.csv?month=november', undefined, 'month'],
      ['GET', '/teams/me/usage', undefined, 'month'],
    ] as const)('%s %s %j', async (method, url, payload, field) => {
      const owner = await teamOwner(ctx);
      const res = await call(method, url.replace('{member}', owner.user.id), owner, payload);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).field).toBe(field);
    });
  });
});

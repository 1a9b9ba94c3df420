// decisions.md, "Team money and roles: who may do what": only the owner makes admins (by a role
// change, an invitation, its resend or its accept), and caps an admin cannot touch; on both
// engines, with requests sent at once to two instances on one database.
import type { FastifyInstance } from 'fastify';
import { invitationToken, join, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, post, register, useSecondInstance, useTestApp } from '../helpers/testApp';

describe.each(ENGINES)('who makes admins and caps on %s', (engine) => {
  const ctx = useTestApp(engine);
  const instance2 = useSecondInstance(ctx);

  const call = (method: 'GET' | 'PATCH' | 'POST', url: string, who: Account, payload?: object, app: FastifyInstance = ctx.app) =>
    app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.access_token), ...(payload ? { payload } : {}) });
  const invite = (who: Account, email: string, role: 'admin' | 'member', app: FastifyInstance = ctx.app) => call('POST', '/teams/me/invitations', who, { email, role }, app);
  const cap = (who: Account, target: Account, monthlyQueryCap: number | null, app: FastifyInstance = ctx.app) =>
    call('PATCH', `/teams/me/members/${target.user.id}`, who, { monthly_query_cap: monthlyQueryCap }, app);
  const refusal = (res: { statusCode: number; json(): { error: { code: string } } }) => [res.statusCode, res.json().error.code];
  const roles = async (who: Account) =>
    Object.fromEntries(((await call('GET', '/teams/me/members', who)).json().members as Array<{ user_id: string; role: string }>).map((m) => [m.user_id, m.role]));
  const caps = async (who: Account) =>
    Object.fromEntries(
      ((await call('GET', '/teams/me/members', who)).json().members as Array<{ user_id: string; monthly_query_cap: number | null }>).map((m) => [m.user_id, m.monthly_query_cap]),
    );
  const accept = (who: Account, token: string) => post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(who.access_token));

  async function teamWithAdmin() {
    const owner = await teamOwner(ctx);
    const admin = await register(ctx.app);
    const member = await register(ctx.app);
    await join(ctx, owner, admin, 'admin');
    await join(ctx, owner, member);
    return { owner, admin, member };
  }

  it('refuses an admin who invites with role admin, re-invites a removed member as admin, or resends the owner’s admin invitation (403 forbidden)', async () => {
    const { owner, admin, member } = await teamWithAdmin();
    const newcomer = await register(ctx.app);
    expect(refusal(await invite(admin, newcomer.account.email, 'admin'))).toEqual([403, 'forbidden']);
    // The finding's path: remove, then invite back as admin.
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/v1/teams/me/members/${member.user.id}`, headers: bearer(admin.access_token) })).statusCode).toBe(204);
    expect(refusal(await invite(admin, member.account.email, 'admin'))).toEqual([403, 'forbidden']);
    expect((await invite(admin, member.account.email, 'member')).statusCode).toBe(201);

    const byOwner = await invite(owner, newcomer.account.email, 'admin');
    expect(byOwner.statusCode).toBe(201);
    expect(refusal(await call('POST', `/teams/me/invitations/${byOwner.json().id}/resend`, admin))).toEqual([403, 'forbidden']);
    // Nothing was sent for the refused calls: the one mail to the newcomer is the owner's.
    expect(await ctx.mail.settledTo(newcomer.account.email, 'team_invitation')).toHaveLength(1);
    const accepted = await accept(newcomer, await invitationToken(ctx, newcomer.account.email));
    expect(accepted.json().role).toBe('admin');
    expect((await roles(owner))[newcomer.user.id]).toBe('admin');
  });

  it('answers an owner or admin who invites their own address 409 cannot_invite_yourself, in words of its own', async () => {
    const { owner, admin } = await teamWithAdmin();
    for (const [who, role] of [[owner, 'admin'], [admin, 'member']] as const) {
      const res = await invite(who, ` ${who.account.email.toUpperCase()}`, role);
      expect([res.statusCode, res.json().error]).toEqual([409, { code: 'cannot_invite_yourself', message: 'This is your own address: you are already in this team.', field: 'email' }]);
    }
  });

  it('makes no admin of an admin invitation whose sender no longer owns the team; the new owner’s resend does', async () => {
    const owner = await teamOwner(ctx);
    const heir = await register(ctx.app);
    const invited = await register(ctx.app);
    await join(ctx, owner, heir);
    expect((await invite(owner, invited.account.email, 'admin')).statusCode).toBe(201);
    const id = (await call('GET', '/teams/me/invitations', owner)).json().invitations[0].id;
    const token = await invitationToken(ctx, invited.account.email);
    expect((await call('POST', '/teams/me/transfer', owner, { user_id: heir.user.id })).statusCode).toBe(204);

    const refused = await accept(invited, token);
    expect(refusal(refused)).toEqual([403, 'forbidden']);
    expect((await call('GET', '/teams/me', invited)).statusCode).toBe(404);
    // The former owner, now an admin, cannot renew it either; the new owner can, and it then holds.
    expect(refusal(await call('POST', `/teams/me/invitations/${id}/resend`, owner))).toEqual([403, 'forbidden']);
    expect((await call('POST', `/teams/me/invitations/${id}/resend`, heir)).statusCode).toBe(200);
    const renewed = await invitationToken(ctx, invited.account.email);
    expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${renewed}` })).json().inviter_name).toBe(heir.account.full_name);
    expect((await accept(invited, renewed)).json().role).toBe('admin');
  });

  it('makes no admin of an admin invitation an admin sent before admins were refused it', async () => {
    const { owner, admin } = await teamWithAdmin();
    const invited = await register(ctx.app);
    expect((await invite(owner, invited.account.email, 'member')).statusCode).toBe(201);
    const token = await invitationToken(ctx, invited.account.email);
    // As the data of an older release may hold it: an admin's invitation with role admin.
    await ctx.app.database.db.updateTable('team_invitations').set({ role: 'admin', invited_by: admin.user.id }).where('email', '=', invited.account.email).execute();
    expect(refusal(await accept(invited, token))).toEqual([403, 'forbidden']);
    expect((await roles(owner))[invited.user.id]).toBeUndefined();
  });

  it('lets an admin cap members only: not themself, the owner or another admin; the owner caps anyone but themself', async () => {
    const { owner, admin, member } = await teamWithAdmin();
    const second = await register(ctx.app);
    await join(ctx, owner, second, 'admin');
    expect((await cap(owner, admin, 10)).statusCode).toBe(200);
    const refusals = [await cap(admin, admin, null), await cap(admin, admin, 1000), await cap(admin, owner, 0), await cap(admin, owner, null), await cap(admin, second, 0), await cap(owner, owner, 0)];
    expect(refusals.map(refusal)).toEqual(refusals.map(() => [403, 'forbidden']));
    expect(refusals[2]!.json().error.message).toBe('No one can cap the team’s owner.');
    expect(refusals[0]!.json().error.message).toBe('Only the team’s owner can set an admin’s cap, your own included.');
    expect((await cap(admin, member, 5)).statusCode).toBe(200);
    expect((await cap(owner, second, 3)).statusCode).toBe(200);
    expect(await caps(owner)).toEqual({ [owner.user.id]: null, [admin.user.id]: 10, [second.user.id]: 3, [member.user.id]: 5 });
  });

  it('lets a new owner lift the cap they had as a member, and set none on themself', async () => {
    const owner = await teamOwner(ctx);
    const heir = await register(ctx.app);
    await join(ctx, owner, heir);
    expect((await cap(owner, heir, 4)).statusCode).toBe(200);
    expect((await call('POST', '/teams/me/transfer', owner, { user_id: heir.user.id })).statusCode).toBe(204);
    expect(refusal(await cap(owner, heir, null))).toEqual([403, 'forbidden']);
    expect(refusal(await cap(heir, heir, 8))).toEqual([403, 'forbidden']);
    expect((await cap(heir, heir, null)).statusCode).toBe(200);
    expect((await caps(heir))[heir.user.id]).toBeNull();
  });

  it('with a transfer and the old owner’s admin invitations and caps sent at once to two instances, the only admin made is the old owner', async () => {
    const owner = await teamOwner(ctx);
    const heir = await register(ctx.app);
    const member = await register(ctx.app);
    await join(ctx, owner, heir);
    await join(ctx, owner, member);
    const invitees = await Promise.all(Array.from({ length: 4 }, () => register(ctx.app)));
    const apps = [ctx.app, instance2.current];
    const answers = await Promise.all([
      call('POST', '/teams/me/transfer', owner, { user_id: heir.user.id }, instance2.current),
      ...invitees.map((who, i) => invite(owner, who.account.email, 'admin', apps[i % 2])),
      ...[0, 1, 2, 3].map((i) => cap(owner, heir, i, apps[i % 2])),
      ...[0, 1].map((i) => call('PATCH', `/teams/me/members/${member.user.id}`, owner, { role: 'admin' }, apps[i])),
    ]);
    expect(answers[0]!.statusCode).toBe(204);
    expect(answers.every((res) => [200, 201, 204, 403].includes(res.statusCode))).toBe(true);
    // Whatever landed before the transfer, no invitation of the former owner makes an admin now.
    for (const [i, who] of invitees.entries()) {
      if (answers[1 + i]!.statusCode === 201) expect(refusal(await accept(who, await invitationToken(ctx, who.account.email)))).toEqual([403, 'forbidden']);
    }
    const after = await roles(heir);
    expect(after[heir.user.id]).toBe('owner');
    expect(after[owner.user.id]).toBe('admin');
    // A role change the owner made before handing over stands; none made after it.
    const promoted = answers.slice(-2).filter((res) => res.statusCode === 200).length > 0;
    expect(after[member.user.id]).toBe(promoted ? 'admin' : 'member');
    const capsAfter = await caps(heir);
    // The heir's cap is one the owner set before handing over, or none; the heir can lift it.
    expect(capsAfter[heir.user.id] === null || [0, 1, 2, 3].includes(capsAfter[heir.user.id]!)).toBe(true);
    expect((await cap(heir, heir, null)).statusCode).toBe(200);
  });

  it('refuses an admin’s admin invitations and caps on the owner and admins sent at once to two instances, and none lands', async () => {
    const { owner, admin } = await teamWithAdmin();
    const second = await register(ctx.app);
    await join(ctx, owner, second, 'admin');
    await cap(owner, admin, 7);
    const stamp = `${Date.now()}${engine}`;
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => {
        const app = i % 2 ? instance2.current : ctx.app;
        if (i % 4 === 0) return invite(admin, `rush${i}.${stamp}@example.com`, 'admin', app);
        if (i % 4 === 1) return cap(admin, owner, 0, app);
        if (i % 4 === 2) return cap(admin, admin, null, app);
        return cap(admin, second, 0, app);
      }),
    );
    expect(answers.map(refusal)).toEqual(answers.map(() => [403, 'forbidden']));
    expect((await call('GET', '/teams/me/invitations', owner)).json().invitations).toEqual([]);
    expect(await caps(owner)).toMatchObject({ [owner.user.id]: null, [admin.user.id]: 7, [second.user.id]: null });
  });
});

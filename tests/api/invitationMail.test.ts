// decisions.md, "Team money and roles": invitation mail is bounded like reset mail, at most 5 mails
// per invited address per hour and 50 per team per day, counting invitations, resends and
// invite-revoke-invite cycles; on both engines, with requests sent at once to two instances.
import { signIn, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, useSecondInstance, useTestApp } from '../helpers/testApp';

const HOUR = 60 * 60_000;

describe.each(ENGINES)('invitation mail limits on %s', (engine) => {
  const ctx = useTestApp(engine);
  const second = useSecondInstance(ctx);

  let stamp = 0;
  const address = () => `invited${(stamp += 1)}.${Date.now()}.${engine}@example.com`;
  const call = (method: 'POST' | 'DELETE', url: string, who: Account, payload?: object, app = ctx.app) =>
    app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.access_token), ...(payload ? { payload } : {}) });
  const invite = (who: Account, email: string, app = ctx.app) => call('POST', '/teams/me/invitations', who, { email, role: 'member' }, app);
  const resend = (who: Account, id: string, app = ctx.app) => call('POST', `/teams/me/invitations/${id}/resend`, who, undefined, app);
  const revoke = (who: Account, id: string) => call('DELETE', `/teams/me/invitations/${id}`, who);
  /**
   * How many mails went to `to` once every answered call's mail went out (mail leaves after the
   * answer). Both instances send from the one queue, so the other's worker may hold one mid-send: it
   * is drained too.
   */
  const mailsTo = async (to: string) => {
    await second.current.mailer.drain();
    return (await ctx.mail.settledTo(to, 'team_invitation')).length;
  };
  const refusal = (res: { statusCode: number; headers: Record<string, unknown>; json(): { error: { code: string; message: string } } }) => ({
    status: res.statusCode,
    code: res.json().error.code,
    retryAfter: Number(res.headers['retry-after']),
  });

  it('sends an address at most 5 invitation mails an hour, resends and invite-revoke-invite cycles counted, then 429 too_many_invitations with Retry-After', async () => {
    const owner = await teamOwner(ctx);
    const email = address();
    const first = (await invite(owner, email)).json();
    ctx.clock.advance(60_000);
    for (let i = 0; i < 2; i++) expect((await resend(owner, first.id)).statusCode).toBe(200);
    expect((await revoke(owner, first.id)).statusCode).toBe(204);
    const second = await invite(owner, email);
    expect(second.statusCode).toBe(201);
    expect((await revoke(owner, second.json().id)).statusCode).toBe(204);
    const third = await invite(owner, email);
    expect(third.statusCode).toBe(201);
    // Five mails so far: the sixth, by resend or by a new invitation, is refused and sends nothing.
    const refusedResend = await resend(owner, third.json().id);
    expect(refusal(refusedResend)).toEqual({ status: 429, code: 'too_many_invitations', retryAfter: 59 * 60 });
    expect(refusedResend.json().error.message).toBe('This address was sent 5 invitation mails in the last hour. Please wait 59 minutes and try again.');
    expect((await revoke(owner, third.json().id)).statusCode).toBe(204);
    expect(refusal(await invite(owner, email))).toMatchObject({ status: 429, code: 'too_many_invitations' });
    expect(await mailsTo(email)).toBe(5);
    // The refused invitation was not made: nothing pending holds the address or a seat.
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/teams/me/invitations', headers: bearer(owner.access_token) })).json().invitations).toEqual([]);

    // An hour after the first mail, one place is free again.
    ctx.clock.advance(59 * 60_000);
    await signIn(ctx, owner);
    expect((await invite(owner, email)).statusCode).toBe(201);
    expect(await mailsTo(email)).toBe(6);
  });

  it('counts an address’s mails across teams', async () => {
    const [a, b] = [await teamOwner(ctx), await teamOwner(ctx)];
    const email = address();
    const sent = (await invite(a, email)).json();
    for (let i = 0; i < 4; i++) expect((await resend(a, sent.id)).statusCode).toBe(200);
    expect(refusal(await invite(b, email))).toMatchObject({ status: 429, code: 'too_many_invitations' });
    ctx.clock.advance(HOUR);
  });

  it('sends a team at most 50 invitation mails a day, then 429 too_many_invitations with Retry-After', async () => {
    const owner = await teamOwner(ctx);
    const start = ctx.clock.now();
    for (let i = 0; i < ctx.config.invitationMails.perTeamPerDay; i++) {
      const sent = await invite(owner, address());
      expect(sent.statusCode).toBe(201);
      expect((await revoke(owner, sent.json().id)).statusCode).toBe(204);
      ctx.clock.advance(10_000);
    }
    const refused = await invite(owner, address());
    expect(refusal(refused)).toEqual({ status: 429, code: 'too_many_invitations', retryAfter: (start + 24 * HOUR - ctx.clock.now()) / 1000 });
    expect(refused.json().error.message).toMatch(/^Your team sent 50 invitation mails in the last day\. Please wait \d+ minutes and try again\.$/);
    ctx.clock.time = start + 24 * HOUR;
    await signIn(ctx, owner);
    expect((await invite(owner, address())).statusCode).toBe(201);
    ctx.clock.advance(24 * HOUR);
  });

  it('lets exactly 3 of 20 resends sent at once by two teams through two instances mail an address that had 2 mails', async () => {
    const [a, b] = [await teamOwner(ctx), await teamOwner(ctx)];
    const email = address();
    const ids = [(await invite(a, email)).json().id as string, (await invite(b, email)).json().id as string];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => resend(i % 4 < 2 ? a : b, ids[i % 4 < 2 ? 0 : 1]!, i % 2 ? second.current : ctx.app)));
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(answers.filter((res) => res.statusCode !== 200).map((res) => refusal(res).code)).toEqual(Array(17).fill('too_many_invitations'));
    // Five mails counted against the address; fewer may go out, since a resend replaces its
    // invitation's mail while that is still queued (its link is dead), never more.
    const counted = await ctx.app.database.db.selectFrom('invitation_mails').select((eb) => eb.fn.countAll<number>().as('n')).where('email', '=', email).executeTakeFirstOrThrow();
    expect(Number(counted.n)).toBe(5);
    await second.current.mailer.drain();
    expect((await ctx.mail.settledTo(email, 'team_invitation')).length).toBeLessThanOrEqual(5);
    ctx.clock.advance(HOUR);
  });

  it('puts no text an inviter typed in the subject; the body names team and inviter as plain text', async () => {
    const owner = await teamOwner(ctx, { full_name: 'Your account is locked: visit evil.example/unlock' });
    const email = address();
    expect((await invite(owner, email)).statusCode).toBe(201);
    const mails = await ctx.mail.settledTo(email, 'team_invitation');
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.subject).toBe('You are invited to join a team on SheetMind');
    expect(mail.text).toContain('Your account is locked: visit evil.example/unlock invited you to join the team');
  });
});

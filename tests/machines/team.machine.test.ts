import type { ErrorCode } from '../../contract/errors';
import { createActor, fromPromise } from 'xstate';
import type { TeamChange, TeamData } from '../../machines/team/team.actors';
import { teamMachine } from '../../machines/team/team.machine';
import { inviteFormMachine } from '../../machines/inviteForm/inviteForm.machine';
import { invitationMachine } from '../../machines/invitation/invitation.machine';
import type { AuthActorRef, AuthInput } from '../../machines/shared/authRetry';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type InvitationPreview, type TeamInvitation } from '../../machines/shared/api';
import { word, worded } from '../helpers/words';

const auth = null as unknown as AuthActorRef;
const refusal = (status: number, code: ErrorCode, text = 'from the server') => new ApiRequestError(`API Error: ${status}`, status, code, text);
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const data = (role: TeamData['role']): TeamData => ({
  team: { id: 't', name: 'Ada’s team', created_at: '2026-11-01T00:00:00.000Z', seat_limit: 10, seats_used: 2, plan_status: 'active', default_monthly_query_cap: null, require_two_factor: false, session_max_age_hours: null },
  role,
  ownPaidPlan: null,
  members: [],
  invitations: role === 'member' ? null : [{ id: 'i1', email: 'bob@example.com', role: 'member', expires_at: '2026-11-30T00:00:00.000Z' }],
  usage: null,
  audit: null,
  held: null,
});

function team(load: () => Promise<TeamData>, change: (c: TeamChange) => Promise<void> = async () => undefined) {
  const notified: Array<{ type: string; title: string; description?: string }> = [];
  const navigated: string[] = [];
  const actor = createActor(
    teamMachine.provide({
      actors: {
        load: fromPromise<TeamData, AuthInput & { month: string }>(() => load()),
        change: fromPromise<void, AuthInput & { change: TeamChange }>(({ input }) => change(input.change)),
      },
      actions: { notify: (_, params) => notified.push(worded(params)), navigate: (_, { to }) => navigated.push(to), logFailure: () => undefined },
    }),
    { input: { auth, userId: 'me', month: '2026-11' } },
  ).start();
  return { actor, notified, navigated };
}

describe('team page chart', () => {
  it('shows the Team offer to someone in no team, and a retry when loading fails', async () => {
    const outside = team(() => Promise.reject(refusal(404, 'not_in_team')));
    await settle();
    expect(outside.actor.getSnapshot().value).toBe('notInTeam');
    let attempts = 0;
    const flaky = team(() => (++attempts === 1 ? Promise.reject(new Error('offline')) : Promise.resolve(data('owner'))));
    await settle();
    expect(flaky.actor.getSnapshot().value).toBe('failed');
    flaky.actor.send({ type: 'team.retry' });
    await settle();
    expect(flaky.actor.getSnapshot().context.data?.role).toBe('owner');
  });

  it('makes one change at a time, says a resend in words, and reloads after it', async () => {
    let loads = 0;
    const made: TeamChange[] = [];
    const { actor, notified } = team(
      async () => (loads++, data('admin')),
      async (c) => void made.push(c),
    );
    await settle();
    actor.send({ type: 'invitation.resend', id: 'i1' });
    expect(actor.getSnapshot().hasTag('changing')).toBe(true);
    actor.send({ type: 'member.remove', userId: 'x' });
    await settle();
    await settle();
    expect(made).toEqual([{ kind: 'resend', id: 'i1' }]);
    expect(notified).toEqual([{ type: 'success', title: messages.team.resent('bob@example.com') }]);
    expect(loads).toBe(2);
    expect(actor.getSnapshot().hasTag('changing')).toBe(false);
  });

  it('offers a transfer to the owner only, and settings to admins only; Cancel drops an asked-for change', async () => {
    const made: TeamChange[] = [];
    for (const role of ['member', 'admin'] as const) {
      const { actor } = team(async () => data(role), async (c) => void made.push(c));
      await settle();
      actor.send({ type: 'member.transfer', userId: 'x' });
      if (role === 'member') actor.send({ type: 'team.rename', name: 'Ours' });
      expect(actor.getSnapshot().matches({ ready: { changes: 'idle' } })).toBe(true);
    }
    const { actor, notified } = team(async () => data('owner'), async (c) => void made.push(c));
    await settle();
    actor.send({ type: 'member.transfer', userId: 'x' });
    expect(actor.getSnapshot().context.changing).toEqual({ kind: 'transfer', userId: 'x' });
    actor.send({ type: 'change.cancel' });
    expect(actor.getSnapshot().context.changing).toBeNull();
    actor.send({ type: 'team.defaultCap', cap: 20 });
    await settle();
    await settle();
    expect(made).toEqual([{ kind: 'defaultCap', cap: 20 }]);
    expect(notified).toEqual([{ type: 'success', title: messages.team.defaultCapSaved }]);
  });

  it('tells a refusal in the catalogue’s words, and sends someone who left to the dashboard', async () => {
    const refused = team(async () => data('admin'), () => Promise.reject(refusal(403, 'forbidden')));
    await settle();
    refused.actor.send({ type: 'member.role', userId: 'x', role: 'admin' });
    await settle();
    expect(refused.notified[0]).toEqual({ type: 'error', title: messages.team.actionFailed, description: messages.team.errors.forbidden });
    const leaving = team(async () => data('member'));
    await settle();
    leaving.actor.send({ type: 'member.remove', userId: 'me' });
    // Leaving asks first; nothing is sent until the person confirms.
    expect(leaving.actor.getSnapshot().matches({ ready: { changes: 'confirming' } })).toBe(true);
    leaving.actor.send({ type: 'change.confirm' });
    await settle();
    expect(leaving.actor.getSnapshot().value).toBe('notInTeam');
    expect(leaving.navigated).toEqual(['/dashboard']);
    // A plain member has no usage month to change.
    expect(leaving.actor.getSnapshot().can({ type: 'usage.month', month: '2026-10' })).toBe(false);
  });
});

describe('team page chart, security policy', () => {
  const ownFactorFirst = 'Set up two-step sign-in for yourself first: then you can require it of the team without locking yourself out.';

  it('saves the policy as one change for admins only, says so, and tells a refusal in the server’s words', async () => {
    const made: TeamChange[] = [];
    const member = team(async () => data('member'), async (c) => void made.push(c));
    await settle();
    member.actor.send({ type: 'team.security', requireTwoFactor: true, sessionMaxAgeHours: 12 });
    expect(member.actor.getSnapshot().matches({ ready: { changes: 'idle' } })).toBe(true);
    const admin = team(async () => data('admin'), async (c) => void made.push(c));
    await settle();
    admin.actor.send({ type: 'team.security', requireTwoFactor: false, sessionMaxAgeHours: 12 });
    await settle();
    await settle();
    expect(made).toEqual([{ kind: 'security', requireTwoFactor: false, sessionMaxAgeHours: 12 }]);
    expect(admin.notified).toEqual([{ type: 'success', title: messages.team.securitySaved }]);
    const refused = team(async () => data('owner'), () => Promise.reject(refusal(403, 'two_factor_required', ownFactorFirst)));
    await settle();
    refused.actor.send({ type: 'team.security', requireTwoFactor: true, sessionMaxAgeHours: null });
    await settle();
    expect(refused.notified[0]).toEqual({ type: 'error', title: messages.team.actionFailed, description: ownFactorFirst });
  });
});

describe('invite form chart', () => {
  function form(invite: (email: string) => Promise<TeamInvitation>) {
    const sent: string[] = [];
    const notified: string[] = [];
    const described: Array<string | undefined> = [];
    const actor = createActor(
      inviteFormMachine.provide({
        actors: { invite: fromPromise<TeamInvitation, AuthInput & { email: string; role: 'admin' | 'member' }>(({ input }) => invite(input.email)) },
        actions: { sent: () => sent.push('sent'), notify: (_, { title, description }) => (notified.push(word(title)), described.push(description && word(description))) },
      }),
      { input: { auth } },
    ).start();
    return { actor, sent, notified, described };
  }

  it('tells an admin who invites an admin that only the owner can', async () => {
    const { actor, notified, described } = form(() => Promise.reject(refusal(403, 'forbidden')));
    actor.send({ type: 'draft.email', value: 'bob@example.com' });
    actor.send({ type: 'draft.role', value: 'admin' });
    actor.send({ type: 'form.submit' });
    await settle();
    expect(notified).toEqual([messages.team.actionFailed]);
    expect(described).toEqual(['Only the team’s owner can invite admins. Invite them as a member, or ask the owner.']);
    expect(actor.getSnapshot().context.error).toBeNull();
  });

  it('shows an invitation to one’s own address refused under the field, in words of its own', async () => {
    const { actor, notified } = form(() => Promise.reject(refusal(409, 'cannot_invite_yourself')));
    actor.send({ type: 'draft.email', value: 'ada@example.com' });
    actor.send({ type: 'form.submit' });
    await settle();
    expect(word(actor.getSnapshot().context.error!)).toBe('This is your own address: you are already in this team.');
    expect(notified).toEqual([]);
  });

  it('checks the address before sending, and shows a refusal about it under the field', async () => {
    const { actor } = form(() => Promise.reject(refusal(409, 'invitation_pending')));
    actor.send({ type: 'form.submit' });
    expect(word(actor.getSnapshot().context.error!)).toBe(messages.team.emailRequired);
    actor.send({ type: 'draft.email', value: 'not an address' });
    actor.send({ type: 'form.submit' });
    expect(word(actor.getSnapshot().context.error!)).toBe(messages.team.emailInvalid);
    actor.send({ type: 'draft.email', value: ' bob@example.com ' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await settle();
    expect(word(actor.getSnapshot().context.error!)).toBe(messages.team.errors.invitation_pending);
  });

  it('clears the form and tells the page once sent; a seat refusal goes to a toast', async () => {
    const ok = form(async (email) => ({ id: 'i', email: email.trim(), role: 'member', expires_at: '' }));
    ok.actor.send({ type: 'draft.email', value: 'bob@example.com' });
    ok.actor.send({ type: 'form.submit' });
    await settle();
    expect(ok.sent).toEqual(['sent']);
    expect(ok.notified).toEqual([messages.team.inviteSent('bob@example.com')]);
    expect(ok.actor.getSnapshot().context.email).toBe('');
    const full = form(() => Promise.reject(refusal(403, 'seat_limit_reached')));
    full.actor.send({ type: 'draft.email', value: 'bob@example.com' });
    full.actor.send({ type: 'form.submit' });
    await settle();
    expect(full.actor.getSnapshot().context.error).toBeNull();
    expect(full.notified).toEqual([messages.team.actionFailed]);
  });
});

describe('invitation chart', () => {
  const preview: InvitationPreview = { team_name: 'Ada’s team', inviter_name: 'Ada', email: 'bob@example.com', role: 'member', expires_at: '2026-11-30T00:00:00.000Z' };
  function invitation(load: () => Promise<InvitationPreview>, accept: () => Promise<{ team: { name: string }; role: 'member' }>) {
    const navigated: string[] = [];
    const actor = createActor(
      invitationMachine.provide({
        actors: { preview: fromPromise(() => load()), accept: fromPromise(() => accept()) as never },
        actions: { navigate: (_, { to }) => navigated.push(to), notify: () => undefined },
      }),
      { input: { auth, token: 'tok' } },
    ).start();
    return { actor, navigated };
  }

  it('says a used, revoked or expired link is no longer valid', async () => {
    const { actor } = invitation(() => Promise.reject(refusal(404, 'invalid_invitation')), async () => ({ team: { name: '' }, role: 'member' }));
    await settle();
    expect(actor.getSnapshot().value).toBe('invalid');
  });

  it('says in words of its own why an admin invitation from someone no longer the owner cannot be accepted', async () => {
    const { actor } = invitation(async () => ({ ...preview, role: 'admin' }), () => Promise.reject(refusal(403, 'forbidden')));
    await settle();
    actor.send({ type: 'invitation.accept' });
    await settle();
    expect(actor.getSnapshot().value).toBe('showing');
    expect(word(actor.getSnapshot().context.failure!)).toBe('This invitation would make you an admin, but whoever sent it no longer owns the team. Ask the team’s owner to send it again.');
  });

  it('keeps a mismatch on the page in words, and goes to the team page once joined', async () => {
    let answer: 'mismatch' | 'ok' = 'mismatch';
    const { actor, navigated } = invitation(async () => preview, () =>
      answer === 'mismatch' ? Promise.reject(refusal(403, 'invitation_email_mismatch')) : Promise.resolve({ team: { name: 'Ada’s team' }, role: 'member' }),
    );
    await settle();
    actor.send({ type: 'invitation.accept' });
    await settle();
    expect(actor.getSnapshot().value).toBe('showing');
    expect(word(actor.getSnapshot().context.failure!)).toBe(messages.invitation.errors.invitation_email_mismatch);
    answer = 'ok';
    actor.send({ type: 'invitation.accept' });
    await settle();
    expect(actor.getSnapshot().status).toBe('done');
    expect(navigated).toEqual(['/team']);
  });
});

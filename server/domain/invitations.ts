import { sql, type Kysely, type Transaction } from 'kysely';
import { TEAM_SEAT_LIMIT } from '../../contract/plans';
import type { InvitationPreview, TeamInvitation } from '../../contract/teams';
import type { Database, Engine, TeamInvitationsTable, TeamRole } from '../db/types';
import { ApiError } from '../errors';
import { recordAudit } from './auditLog';
import { countUnderLock, lockOwner } from './locks';
import { managesTeam } from '../../contract/roles';
import { forbidden, seatsUsed, type Acting } from './teams';
import { hashToken, randomToken } from './tokens';
import { normaliseEmail } from './users';
import { uuidV7 } from './uuidv7';

/**
 * Invitations by email (decisions.md): a single-use random token stored only hashed, valid 7
 * days, one pending invitation per address and team (a unique index), seats counted in the
 * transaction that adds one, with the team locked (see `actingIn`), so invitations sent at once
 * never pass the seat limit together.
 */

type Db = Kysely<Database> | Transaction<Database>;
type Trx = Transaction<Database>;
type InvitedRole = Exclude<TeamRole, 'owner'>;

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

const HOUR_MS = 60 * 60_000;
/** Invitation mail is bounded like reset mail (decisions.md): per invited address an hour, and per team a day (`config.invitationMails`). */
export interface InvitationMailLimits {
  perAddressPerHour: number;
  perTeamPerDay: number;
}
/** The class of the PostgreSQL advisory locks that make one address's mails count one at a time across teams. */
const ADDRESS_LOCK_CLASS = 0x1a11;

export const invalidInvitation = () =>
  new ApiError(404, 'invalid_invitation', 'This invitation link is no longer valid: it was used, revoked, replaced by a newer one, or it expired. Ask the team’s admin for a new one.');
const invitationNotFound = () => new ApiError(404, 'invitation_not_found', 'There is no such pending invitation in your team.', { field: 'id' });
const seatLimitReached = () =>
  new ApiError(403, 'seat_limit_reached', `The team has no free seat: the Team plan covers ${TEAM_SEAT_LIMIT} members, pending invitations included. Revoke an invitation or remove a member first.`);
/** Refuses a new seat when the team's are taken, counted under the team's lock. */
const countSeats = (trx: Trx, engine: Engine, teamId: string, now: number) =>
  countUnderLock(trx, engine, { table: 'teams', id: teamId }, () => seatsUsed(trx, teamId, now), TEAM_SEAT_LIMIT, seatLimitReached);
/** decisions.md, "Team money and roles": only the owner makes admins, an invitation with role admin included. */
const onlyOwnerInvitesAdmins = () => forbidden('Only the team’s owner can invite admins. Invite them as a member, or ask the owner.');
const alreadyInTeam = (whom: 'they' | 'you') =>
  new ApiError(409, 'already_in_team', whom === 'they' ? 'This person is already in a team; a person can be in one team at a time.' : 'You are already in a team. Leave it before joining another.', whom === 'they' ? { field: 'email' } : {});

const wire = (row: Pick<TeamInvitationsTable, 'id' | 'email' | 'role' | 'expires_at'>): TeamInvitation => ({
  id: row.id,
  email: row.email,
  role: row.role,
  expires_at: new Date(Number(row.expires_at)).toISOString(),
});

/** An invitation just made or renewed, with the token its mail carries (the only copy in the clear). */
export interface Issued {
  invitation: TeamInvitation;
  token: string;
}

/** The id of the account with this address when it is in a team (any team). */
async function memberWithEmail(db: Db, email: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').innerJoin('team_members', 'team_members.user_id', 'users.id').select('users.id').where('users.email', '=', email).executeTakeFirst();
  return row?.id;
}

/**
 * When the window holding `max` of these mails frees a place: the `max`-th newest of them leaves it
 * then; null when there is room now.
 */
async function fullUntil(trx: Trx, column: 'email' | 'team_id', value: string, limit: { max: number; windowMs: number }, now: number): Promise<number | null> {
  const row = await trx
    .selectFrom('invitation_mails')
    .select('sent_at')
    .where(column, '=', value)
    .where('sent_at', '>', now - limit.windowMs)
    .orderBy('sent_at', 'desc')
    .limit(1)
    .offset(limit.max - 1)
    .executeTakeFirst();
  return row ? Number(row.sent_at) + limit.windowMs : null;
}

function tooManyInvitations(message: string, until: number, now: number): ApiError {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  const minutes = Math.ceil(seconds / 60);
  return new ApiError(429, 'too_many_invitations', `${message} Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`, {
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * Counts one invitation mail to `email` from the acting team, or refuses it (429
 * `too_many_invitations` with Retry-After) when the address had 5 in the last hour or the team 50
 * in the last day. In the transaction that issues the link: the team's row is locked (see
 * `actingIn`) and on PostgreSQL so is the address (an advisory lock), so mails sent at once, from
 * any instance and any team, are counted one after another; a refusal rolls the invitation back.
 */
async function takeInvitationMail(trx: Trx, engine: Engine, acting: Acting, email: string, limits: InvitationMailLimits, now: number): Promise<void> {
  if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${ADDRESS_LOCK_CLASS}, hashtext(${email}))`.execute(trx);
  const addressFull = await fullUntil(trx, 'email', email, { max: limits.perAddressPerHour, windowMs: HOUR_MS }, now);
  if (addressFull !== null) throw tooManyInvitations(`This address was sent ${limits.perAddressPerHour} invitation mails in the last hour.`, addressFull, now);
  const teamFull = await fullUntil(trx, 'team_id', acting.team.id, { max: limits.perTeamPerDay, windowMs: 24 * HOUR_MS }, now);
  if (teamFull !== null) throw tooManyInvitations(`Your team sent ${limits.perTeamPerDay} invitation mails in the last day.`, teamFull, now);
  await trx.insertInto('invitation_mails').values({ id: uuidV7(now), team_id: acting.team.id, email, sent_at: now }).execute();
}

export async function invite(trx: Trx, engine: Engine, acting: Acting, rawEmail: string, role: InvitedRole, limits: InvitationMailLimits, now: number): Promise<Issued> {
  if (!managesTeam(acting.role)) throw forbidden();
  if (role === 'admin' && acting.role !== 'owner') throw onlyOwnerInvitesAdmins();
  const email = normaliseEmail(rawEmail);
  const teamId = acting.team.id;
  const member = await memberWithEmail(trx, email);
  if (member === acting.person.id) throw new ApiError(409, 'cannot_invite_yourself', 'This is your own address: you are already in this team.', { field: 'email' });
  if (member) throw alreadyInTeam('they');
  // An expired invitation no longer holds the address or a seat.
  await trx.updateTable('team_invitations').set({ status: 'expired' }).where('team_id', '=', teamId).where('email', '=', email).where('status', '=', 'pending').where('expires_at', '<=', now).execute();
  const pending = await trx.selectFrom('team_invitations').select('id').where('team_id', '=', teamId).where('email', '=', email).where('status', '=', 'pending').executeTakeFirst();
  if (pending) throw new ApiError(409, 'invitation_pending', 'This address already has a pending invitation. Resend it instead.', { field: 'email' });
  await countSeats(trx, engine, teamId, now);
  await takeInvitationMail(trx, engine, acting, email, limits, now);
  const token = randomToken();
  const row = { id: uuidV7(now), team_id: teamId, email, role, token_hash: hashToken(token), invited_by: acting.person.id, status: 'pending' as const, created_at: now, expires_at: now + INVITATION_TTL_MS };
  await trx.insertInto('team_invitations').values(row).execute();
  await recordAudit(trx, { teamId, actor: acting.person, action: 'invitation.created', target: { id: null, name: email }, detail: role, ip: acting.ip, at: now });
  return { invitation: wire(row), token };
}

export async function pendingInvitations(db: Db, teamId: string, now: number): Promise<TeamInvitation[]> {
  const rows = await db
    .selectFrom('team_invitations')
    .select(['id', 'email', 'role', 'expires_at'])
    .where('team_id', '=', teamId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute();
  return rows.map(wire);
}

async function pendingIn(trx: Trx, teamId: string, id: string) {
  const row = await trx.selectFrom('team_invitations').selectAll().where('team_id', '=', teamId).where('id', '=', id).where('status', '=', 'pending').executeTakeFirst();
  if (!row) throw invitationNotFound();
  return row;
}

/**
 * A new token and seven more days; the old link dies. An expired invitation takes a seat again, if
 * one is free. The resender becomes its inviter: the mail and the link name them, and an admin
 * invitation stays one the owner sent.
 */
export async function resend(trx: Trx, engine: Engine, acting: Acting, id: string, limits: InvitationMailLimits, now: number): Promise<Issued> {
  if (!managesTeam(acting.role)) throw forbidden();
  const row = await pendingIn(trx, acting.team.id, id);
  if (row.role === 'admin' && acting.role !== 'owner') throw onlyOwnerInvitesAdmins();
  if (row.expires_at <= now) await countSeats(trx, engine, acting.team.id, now);
  await takeInvitationMail(trx, engine, acting, row.email, limits, now);
  const token = randomToken();
  const expiresAt = now + INVITATION_TTL_MS;
  await trx
    .updateTable('team_invitations')
    .set({ token_hash: hashToken(token), expires_at: expiresAt, invited_by: acting.person.id })
    .where('id', '=', id)
    .execute();
  await recordAudit(trx, { teamId: acting.team.id, actor: acting.person, action: 'invitation.resent', target: { id: null, name: row.email }, detail: row.role, ip: acting.ip, at: now });
  return { invitation: wire({ ...row, expires_at: expiresAt }), token };
}

export async function revoke(trx: Trx, acting: Acting, id: string, now: number): Promise<void> {
  if (!managesTeam(acting.role)) throw forbidden();
  const row = await pendingIn(trx, acting.team.id, id);
  await trx.updateTable('team_invitations').set({ status: 'revoked' }).where('id', '=', id).where('status', '=', 'pending').execute();
  await recordAudit(trx, { teamId: acting.team.id, actor: acting.person, action: 'invitation.revoked', target: { id: null, name: row.email }, detail: row.role, ip: acting.ip, at: now });
}

async function isOwner(db: Db, teamId: string, userId: string | null): Promise<boolean> {
  if (userId === null) return false;
  const row = await db.selectFrom('team_members').select('role').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role === 'owner';
}

async function usable(db: Db, token: string, now: number) {
  const row = await db
    .selectFrom('team_invitations as i')
    .innerJoin('teams as t', 't.id', 'i.team_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select(['i.id', 'i.team_id', 'i.email', 'i.role', 'i.invited_by', 'i.expires_at', 'i.status', 't.name as team_name', 'u.full_name as inviter_name'])
    .where('i.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row || row.status !== 'pending' || row.expires_at <= now) throw invalidInvitation();
  return row;
}

export async function previewInvitation(db: Db, token: string, now: number): Promise<InvitationPreview> {
  const row = await usable(db, token, now);
  return { team_name: row.team_name, inviter_name: row.inviter_name ?? 'A former member', email: row.email, role: row.role, expires_at: new Date(Number(row.expires_at)).toISOString() };
}

/**
 * Joins the invitation's team, once: the invitation is claimed by a conditional update, and the
 * unique `team_members.user_id` refuses a second team even to two invitations accepted at once.
 * The team's row is locked first (PostgreSQL), so the join waits for changes to the team in flight.
 */
export async function accept(
  trx: Trx,
  engine: Engine,
  user: { id: string; email: string; full_name: string },
  token: string,
  ip: string | null,
  now: number,
): Promise<{ teamId: string; role: InvitedRole }> {
  const found = await usable(trx, token, now);
  await lockOwner(trx, engine, { table: 'teams', id: found.team_id });
  const row = await usable(trx, token, now);
  if (row.email !== user.email.trim().toLowerCase()) {
    throw new ApiError(403, 'invitation_email_mismatch', `This invitation is for ${row.email}, but you are signed in as ${user.email}. Sign out and sign in (or register) with ${row.email} to accept it.`);
  }
  // Read after the team's lock: an invitation to be an admin holds only while its sender is the owner
  // (one sent before a transfer, or by an admin before admins were refused it, makes no admin).
  if (row.role === 'admin' && !(await isOwner(trx, row.team_id, row.invited_by))) {
    throw forbidden('This invitation would make you an admin, but the person who sent it is no longer the team’s owner. Ask the owner to send it again.');
  }
  const already = await trx.selectFrom('team_members').select('team_id').where('user_id', '=', user.id).executeTakeFirst();
  if (already) throw alreadyInTeam('you');
  const claimed = await trx.updateTable('team_invitations').set({ status: 'accepted' }).where('id', '=', row.id).where('status', '=', 'pending').executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) throw invalidInvitation();
  const team = await trx.selectFrom('teams').select(['default_monthly_query_cap']).where('id', '=', row.team_id).executeTakeFirstOrThrow();
  try {
    await trx.insertInto('team_members').values({ team_id: row.team_id, user_id: user.id, role: row.role, monthly_query_cap: team.default_monthly_query_cap, joined_at: now }).execute();
  } catch (error) {
    if (/unique|duplicate/i.test(String((error as { message?: unknown }).message))) throw alreadyInTeam('you');
    throw error;
  }
  await recordAudit(trx, { teamId: row.team_id, actor: { id: user.id, name: user.full_name }, action: 'member.joined', target: { id: user.id, name: user.full_name }, detail: row.role, ip, at: now });
  return { teamId: row.team_id, role: row.role };
}

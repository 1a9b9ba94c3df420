import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PlanId } from '../../contract/plans';
import type { User } from '../../contract/schemas';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, FULL_NAME_MAX_LENGTH, USERNAME_PATTERN } from '../../contract/validation';
import type { Database, UsersTable } from '../db/types';
import { ApiError } from '../errors';

// Control characters have no place in a name shown on screens and in e-mails.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * What no address needs and a look-alike does: format characters (bidi embeddings, overrides and
 * isolates, zero-width spaces and joiners, soft hyphens, BOM) and line or paragraph separators.
 */
const HIDDEN_IN_EMAIL = /[\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * An address as stored and compared: trimmed and lower-cased. One that reads as another does
 * (`ａdmin@…`, a hidden U+202E or U+200B) is refused as names are, on every call that takes an
 * address: sign-up, sign-in, reset requests and invitations. The refusal depends on the text alone,
 * never on whether an account has it, so sign-in and reset requests tell nothing more by it.
 * Full-width and other compatibility characters are the ones Unicode's NFKC folds into others.
 */
export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (HIDDEN_IN_EMAIL.test(email) || email.normalize('NFKC') !== email.normalize('NFC')) {
    throw new ApiError(400, 'invalid_input', 'Email must not contain invisible, text-direction, full-width or other look-alike characters.', { field: 'email' });
  }
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(email)) {
    throw new ApiError(400, 'invalid_input', 'Email is invalid.', { field: 'email' });
  }
  return email;
}

export function normaliseUsername(raw: string): string {
  const username = raw.trim();
  if (!USERNAME_PATTERN.test(username)) {
    throw new ApiError(
      400,
      'invalid_input',
      'Username must be 3 to 30 characters: letters, digits, underscore, dot or hyphen.',
      { field: 'username' },
    );
  }
  return username;
}

export function normaliseFullName(raw: string): string {
  // NFC, so "é" typed as e + combining accent is stored, compared and counted as one character;
  // the limit counts code points, as the spec's "characters" means.
  const fullName = raw.normalize('NFC').trim();
  const length = [...fullName].length;
  if (length < 1 || length > FULL_NAME_MAX_LENGTH || CONTROL.test(fullName)) {
    throw new ApiError(400, 'invalid_input', 'Full name must be 1 to 100 characters.', { field: 'full_name' });
  }
  return fullName;
}

/**
 * The user's fields as every request sees them and `User` shows them on the wire: each names the
 * column it is read from and how the column's value reads on the wire. The session check, the API
 * key check (server/domain/liveCredentials.ts) and `toWireUser` are built from this one list, so a
 * new field is one line here (with its migration, `UsersTable` and `UserSchema`); a field that
 * `UserSchema` has and this list lacks, or the other way round, fails the type check below.
 */
export const USER_FIELDS = {
  id: field('id', same),
  email: field('email', same),
  full_name: field('full_name', same),
  username: field('username', same),
  created_at: field('created_at', (at) => new Date(at).toISOString()),
  email_verified: field('email_verified_at', (at) => at !== null),
};

function field<C extends keyof UsersTable, W>(column: C, wire: (value: UsersTable[C]) => W) {
  return { column, wire };
}
function same<T>(value: T): T {
  return value;
}

type UserFieldName = keyof typeof USER_FIELDS;
/** The columns the fields are read from. */
export type UserColumn = (typeof USER_FIELDS)[UserFieldName]['column'];
/** The user's row as far as the fields read it. */
export type UserColumns = Pick<UsersTable, UserColumn>;
/** What the API adds to the user's own fields. */
type AddedOnTheWire = 'subscription_plan' | 'team_role' | 'two_factor_required';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const fieldsMatchTheWire: Same<{ [F in UserFieldName]: ReturnType<(typeof USER_FIELDS)[F]['wire']> }, Omit<Required<User>, AddedOnTheWire>> = true;
void fieldsMatchTheWire;

/** Every column the fields read, once each. */
export const USER_COLUMNS: readonly UserColumn[] = [...new Set(Object.values(USER_FIELDS).map((f) => f.column))];

/** The user's columns out of a wider row (a credential check's, which also holds the credential and the plan). */
export function userColumnsOf(row: UserColumns): UserColumns {
  return Object.fromEntries(USER_COLUMNS.map((column) => [column, row[column]])) as UserColumns;
}

export function toWireUser(user: UserColumns, plan: PlanId): User {
  const fields = Object.fromEntries(
    Object.entries(USER_FIELDS).map(([name, { column, wire }]) => [name, (wire as (value: unknown) => unknown)(user[column])]),
  ) as Omit<User, AddedOnTheWire>;
  return { ...fields, subscription_plan: plan };
}

/** Which unique column a failed insert or update collided with, on either engine. */
function collision(error: unknown): 'email' | 'username' | null {
  // Read by shape, not `instanceof Error`: better-sqlite3's native binding is loaded once per
  // process, so under jest its errors can come from another test file's realm.
  const { message, constraint } = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; constraint?: unknown };
  const text = `${typeof message === 'string' ? message : ''} ${typeof constraint === 'string' ? constraint : ''}`;
  if (!/unique|duplicate/i.test(text)) return null;
  if (/username_key/.test(text)) return 'username';
  if (/email/.test(text)) return 'email';
  return null;
}

export const emailTaken = () =>
  new ApiError(409, 'email_taken', 'An account with this email already exists.', { field: 'email' });
export const usernameTaken = () =>
  new ApiError(409, 'username_taken', 'This username is already taken. Please choose another.', { field: 'username' });

function rethrowCollision(error: unknown): never {
  const column = collision(error);
  if (column === 'email') throw emailTaken();
  if (column === 'username') throw usernameTaken();
  throw error;
}

export async function insertUser(
  db: Kysely<Database>,
  fields: { email: string; username: string; full_name: string; password_hash: string },
  now: number,
): Promise<UsersTable> {
  const user: UsersTable = {
    id: crypto.randomUUID(),
    ...fields,
    username_key: fields.username.toLowerCase(),
    created_at: now,
    updated_at: now,
    email_verified_at: null,
  };
  try {
    await db.insertInto('users').values(user).execute();
  } catch (error) {
    rethrowCollision(error);
  }
  return user;
}

export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** Whether an account has this username, in any case (usernames are unique without regard to case). */
export async function usernameInUse(db: Kysely<Database>, username: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('username_key', '=', username.toLowerCase()).executeTakeFirst()) !== undefined;
}

/** The addresses of these accounts (those that still exist), to mail them. */
export function addressesOf(db: Kysely<Database>, ids: readonly string[]): Promise<Array<Pick<UsersTable, 'id' | 'email'>>> {
  return db.selectFrom('users').select(['id', 'email']).where('id', 'in', ids).execute();
}

export function findUserById(db: Kysely<Database>, id: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateProfile(
  db: Kysely<Database>,
  id: string,
  changes: { full_name?: string; username?: string },
  now: number,
): Promise<void> {
  const values = {
    ...(changes.full_name !== undefined ? { full_name: changes.full_name } : {}),
    ...(changes.username !== undefined ? { username: changes.username, username_key: changes.username.toLowerCase() } : {}),
    updated_at: now,
  };
  try {
    await db.updateTable('users').set(values).where('id', '=', id).execute();
  } catch (error) {
    rethrowCollision(error);
  }
}

/** Sets a new password and voids every reset link still outstanding: a link mailed earlier must not undo it. */
export async function setPasswordHash(db: Kysely<Database>, id: string, passwordHash: string, now: number) {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).execute();
  await db.updateTable('password_resets').set({ used_at: now }).where('user_id', '=', id).where('used_at', 'is', null).execute();
}

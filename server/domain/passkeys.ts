import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database, WebauthnPurpose } from '../db/types';
import { ApiError } from '../errors';

type Transports = NonNullable<WebAuthnCredential['transports']>;

/**
 * Passkeys (WebAuthn) through @simplewebauthn/server: registering one for a signed-in user, and
 * checking one at sign-in, either alone (a discoverable credential names its user) or as the second
 * factor of a known user. Every challenge is stored until it is used once or expires, in the
 * database, so the instance that checks an answer need not be the one that asked.
 */

/** How long a ceremony may take, from the options to the answer. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** The relying party: the site passkeys are bound to, taken from PUBLIC_URL. */
export interface RelyingParty {
  /** PUBLIC_URL's host name: a passkey works only on this site (and its subdomains' parent). */
  id: string;
  /** PUBLIC_URL's origin: the page an answer must come from. */
  origin: string;
  name: string;
}

export function relyingPartyOf(config: Pick<Config, 'publicUrl' | 'web'>): RelyingParty {
  const url = new URL(config.publicUrl);
  return { id: url.hostname, origin: url.origin, name: config.web.brandName };
}

export interface PasskeyView {
  id: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

const NAME_MAX = 64;

const invalidPasskey = (status: 400 | 401, message: string) => new ApiError(status, 'invalid_passkey', message, { field: 'credential' });
const passkeyNotFound = () => new ApiError(404, 'passkey_not_found', 'You have no passkey with this id.', { field: 'id' });

/** A passkey's name: trimmed, 1 to 64 characters; an empty one takes `fallback`. */
export function passkeyName(raw: string | undefined, fallback: string): string {
  const name = (raw ?? '').normalize('NFC').trim();
  if (name === '') return fallback;
  if ([...name].length > NAME_MAX) throw new ApiError(400, 'invalid_input', `A passkey's name has at most ${NAME_MAX} characters.`, { field: 'name' });
  return name;
}

const fromBase64Url = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));
const toBase64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

async function storeChallenge(db: Kysely<Database>, challenge: string, userId: string | null, purpose: WebauthnPurpose, now: number): Promise<void> {
  // Expired challenges go as new ones come: the table holds only the last few minutes' ceremonies.
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
  await db.insertInto('webauthn_challenges').values({ challenge, user_id: userId, purpose, created_at: now, expires_at: now + CHALLENGE_TTL_MS }).execute();
}

/** The challenge the browser signed, read from its client data; 400 when the answer has none. */
function challengeOf(clientDataJSON: unknown): string {
  try {
    const clientData = JSON.parse(Buffer.from(String(clientDataJSON), 'base64url').toString('utf8')) as { challenge?: unknown };
    if (typeof clientData.challenge === 'string' && clientData.challenge !== '') return clientData.challenge;
  } catch {
    // Not JSON: refused below like any answer without a challenge.
  }
  throw invalidPasskey(400, 'The passkey answer is not readable.');
}

/**
 * Uses up the challenge an answer signed (one conditional delete, so two answers at once cannot
 * both use it) and answers whose ceremony it was; false when it is unknown, used or expired.
 */
async function takeChallenge(db: Kysely<Database>, challenge: string, purpose: WebauthnPurpose, now: number): Promise<{ userId: string | null } | false> {
  const taken = await db
    .deleteFrom('webauthn_challenges')
    .where('challenge', '=', challenge)
    .where('purpose', '=', purpose)
    .returning(['user_id', 'expires_at'])
    .executeTakeFirst();
  if (!taken || taken.expires_at <= now) return false;
  return { userId: taken.user_id };
}

/** Options for adding a passkey to the user's account: discoverable, with user verification. */
export async function passkeyRegistrationOptions(
  db: Kysely<Database>,
  rp: RelyingParty,
  user: { id: string; email: string; full_name: string },
  now: number,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.selectFrom('webauthn_credentials').select(['id', 'transports']).where('user_id', '=', user.id).execute();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.full_name,
    // The user handle a discoverable passkey carries: the account's id, never its email.
    userID: new TextEncoder().encode(user.id),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    // One passkey per authenticator: the browser says so rather than making a second one.
    excludeCredentials: existing.map((row) => ({ id: row.id, transports: JSON.parse(row.transports) as Transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  });
  await storeChallenge(db, options.challenge, user.id, 'register', now);
  return options;
}

/**
 * Checks a new passkey against a challenge the user was given, and stores it under `name`.
 * 400 `invalid_passkey` when it does not verify; 409 `passkey_exists` when it is registered already.
 */
export async function registerPasskey(
  db: Kysely<Database>,
  rp: RelyingParty,
  userId: string,
  credential: RegistrationResponseJSON,
  name: string,
  now: number,
): Promise<PasskeyView> {
  const signed = challengeOf(credential.response?.clientDataJSON);
  const challenge = await takeChallenge(db, signed, 'register', now);
  if (!challenge || challenge.userId !== userId) throw invalidPasskey(400, 'This passkey request has expired or was already used. Please try again.');
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: credential,
      expectedChallenge: signed,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch (error) {
    throw invalidPasskey(400, `The passkey could not be verified: ${(error as Error).message}`);
  }
  if (!verified.verified) throw invalidPasskey(400, 'The passkey could not be verified.');
  const { credential: made } = verified.registrationInfo;
  if (await db.selectFrom('webauthn_credentials').select('id').where('id', '=', made.id).executeTakeFirst()) {
    throw new ApiError(409, 'passkey_exists', 'This passkey is registered already.', { field: 'credential' });
  }
  const row = {
    id: made.id,
    user_id: userId,
    name,
    public_key: toBase64Url(made.publicKey),
    counter: made.counter,
    transports: JSON.stringify(credential.response.transports ?? made.transports ?? []),
    created_at: now,
    last_used_at: null,
  };
  await db.insertInto('webauthn_credentials').values(row).execute();
  return { id: row.id, name, created_at: now, last_used_at: null };
}

/** The user's passkeys, oldest first. */
export function passkeysOf(db: Kysely<Database>, userId: string): Promise<PasskeyView[]> {
  return db
    .selectFrom('webauthn_credentials')
    .select(['id', 'name', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** How many passkeys the user has (a passkey is a second factor, decisions.md). */
export async function passkeyCount(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db.selectFrom('webauthn_credentials').select((eb) => eb.fn.countAll<string | number>().as('count')).where('user_id', '=', userId).executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function hasPasskey(db: Kysely<Database>, userId: string): Promise<boolean> {
  return (await db.selectFrom('webauthn_credentials').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst()) !== undefined;
}

/** Renames one of the user's passkeys; 404 `passkey_not_found` for any other. */
export async function renamePasskey(db: Kysely<Database>, userId: string, id: string, name: string): Promise<PasskeyView> {
  const result = await db.updateTable('webauthn_credentials').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw passkeyNotFound();
  return db.selectFrom('webauthn_credentials').select(['id', 'name', 'created_at', 'last_used_at']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** Deletes one of the user's passkeys; 404 `passkey_not_found` for any other. */
export async function deletePasskey(db: Kysely<Database>, userId: string, id: string): Promise<void> {
  const result = await db.deleteFrom('webauthn_credentials').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) throw passkeyNotFound();
}

/**
 * Options for signing in with a passkey, with user verification. For a known user (a second
 * factor) the browser may use that user's passkeys only; for `null` (sign-in by passkey alone) it
 * offers every discoverable passkey it holds for this site, and the passkey names its user.
 */
export async function passkeyAuthenticationOptions(
  db: Kysely<Database>,
  rp: RelyingParty,
  userId: string | null,
  now: number,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allowed = userId === null ? [] : await db.selectFrom('webauthn_credentials').select(['id', 'transports']).where('user_id', '=', userId).execute();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'required',
    allowCredentials: allowed.map((row) => ({ id: row.id, transports: JSON.parse(row.transports) as Transports })),
  });
  await storeChallenge(db, options.challenge, userId, 'authenticate', now);
  return options;
}

/**
 * Checks a passkey's answer to a challenge from `passkeyAuthenticationOptions` and answers the id
 * of the user it belongs to; records its use (counter, last use). With `expectedUserId`, the
 * passkey must be that user's and the challenge one given for them. Throws 400 `invalid_passkey`
 * for an unreadable answer and 401 `invalid_passkey` for one that does not verify (unknown
 * passkey, used or expired challenge, another site or origin, no user verification).
 */
export async function verifyPasskeyAuthentication(
  db: Kysely<Database>,
  rp: RelyingParty,
  credential: AuthenticationResponseJSON,
  expectedUserId: string | null,
  now: number,
): Promise<string> {
  const signed = challengeOf(credential.response?.clientDataJSON);
  const challenge = await takeChallenge(db, signed, 'authenticate', now);
  if (!challenge) throw invalidPasskey(401, 'This passkey request has expired or was already used. Please try again.');
  const refused = invalidPasskey(401, 'This passkey could not be used to sign in.');
  if (challenge.userId !== expectedUserId) throw refused;
  const stored = await db.selectFrom('webauthn_credentials').selectAll().where('id', '=', String(credential.id)).executeTakeFirst();
  if (!stored || (expectedUserId !== null && stored.user_id !== expectedUserId)) throw refused;
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: signed,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: {
        id: stored.id,
        publicKey: fromBase64Url(stored.public_key),
        counter: Number(stored.counter),
        transports: JSON.parse(stored.transports) as Transports,
      },
    });
  } catch {
    throw refused;
  }
  if (!verified.verified) throw refused;
  await db
    .updateTable('webauthn_credentials')
    .set({ counter: verified.authenticationInfo.newCounter, last_used_at: now })
    .where('id', '=', stored.id)
    .execute();
  return stored.user_id;
}

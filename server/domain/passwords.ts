import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { hash, verify } from '@node-rs/argon2';

// argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane). @node-rs/argon2 hashes on
// libuv's thread pool, so the event loop keeps serving while a hash is computed.
const ARGON2ID = 2;
const HASH_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export function hashPassword(password: string): Promise<string> {
  return hash(password, HASH_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, for a login with an unknown email, so the answer
 * time does not tell which emails have accounts.
 */
export async function verifyAgainstDummy(password: string): Promise<void> {
  dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  await verifyPassword(await dummyHash, password);
}

// Read when the server starts, so a missing list stops it at once rather than failing sign-ups.
const COMMON_PASSWORDS = new Set(
  fs
    .readFileSync(path.join(__dirname, '../data/common-passwords.txt'), 'utf8')
    .split('\n')
    .filter((line) => line && !line.startsWith('#')),
);

/** One of the 20,000 most common passwords (compared without regard to case). */
export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

/** Why a new password is refused, or null when it is acceptable. Lengths count characters, not bytes. */
export function passwordProblem(password: string): { code: string; message: string } | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) {
    return { code: 'password_too_short', message: `Password must be at least ${PASSWORD_MIN} characters long.` };
  }
  if (length > PASSWORD_MAX) {
    return { code: 'password_too_long', message: `Password must be at most ${PASSWORD_MAX} characters long.` };
  }
  if (isCommonPassword(password)) {
    return {
      code: 'password_too_common',
      message: 'This password is one of the most commonly used passwords. Please choose another.',
    };
  }
  return null;
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hash, verify, type Options } from '@node-rs/argon2';
import type { ErrorCode } from '../../contract/errors';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../contract/validation';
import { passwordHashCost } from '../config';
import { ApiError } from '../errors';

// argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane) unless configured otherwise
// (the tests lower it). @node-rs/argon2 hashes on libuv's thread pool, so the event loop keeps
// serving while a hash is computed. Verification reads the cost from the stored hash.
const ARGON2ID = 2;

/** Read as each hash starts (the server has checked the variables at start), so a test can raise it for a while. */
function options(): Options {
  const cost = passwordHashCost();
  return { algorithm: ARGON2ID, memoryCost: cost.memoryKiB, timeCost: cost.passes, parallelism: 1 };
}


/**
 * How many hashes run at once, and how many may wait for a turn. Hashes share libuv's four
 * threads with file reads and compression, and more of them than cores only makes each slower:
 * a flood of sign-ups or guesses waits in a short queue, and beyond it is told to come back (503)
 * rather than piling up until every sign-in takes seconds.
 */
export const HASHING = { running: Math.min(os.availableParallelism(), 3), waiting: 64 };
export const HASHING_RETRY_AFTER_S = 2;

let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < HASHING.running) running += 1;
  else if (waiting.length < HASHING.waiting) await new Promise<void>((resolve) => waiting.push(resolve));
  else {
    throw new ApiError(503, 'busy', 'The server is busy. Please try again in a few seconds.', {
      headers: { 'Retry-After': String(HASHING_RETRY_AFTER_S) },
    });
  }
  try {
    return await work();
  } finally {
    // The turn passes straight to the next in line, so `running` never dips while some wait.
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** Throws a 503 `busy` ApiError when too many hashes are running and waiting already. */
export function hashPassword(password: string): Promise<string> {
  return inTurn(() => hash(password, options()));
}

/** Throws a 503 `busy` ApiError when too many hashes are running and waiting already. */
export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return inTurn(() => verify(passwordHash, password).catch(() => false));
}

/** One per cost, so an unknown email costs what a new account's password does. */
const dummyHashes = new Map<string, Promise<string>>();

/**
 * Spends the same time as a real verification, for a login with an unknown email, so the answer
 * time does not tell which emails have accounts.
 */
export async function verifyAgainstDummy(password: string): Promise<void> {
  // Made outside the queue: a refused first guess must not leave a rejected promise here for good.
  const cost = options();
  const key = `${cost.memoryCost},${cost.timeCost}`;
  if (!dummyHashes.has(key)) dummyHashes.set(key, hash(crypto.randomBytes(16).toString('hex'), cost));
  await verifyPassword(await dummyHashes.get(key)!, password);
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
export function passwordProblem(password: string): { code: ErrorCode; message: string } | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    return { code: 'password_too_short', message: `Password must be at least ${PASSWORD_MIN_LENGTH} characters long.` };
  }
  if (length > PASSWORD_MAX_LENGTH) {
    return { code: 'password_too_long', message: `Password must be at most ${PASSWORD_MAX_LENGTH} characters long.` };
  }
  if (isCommonPassword(password)) {
    return {
      code: 'password_too_common',
      message: 'This password is one of the most commonly used passwords. Please choose another.',
    };
  }
  return null;
}

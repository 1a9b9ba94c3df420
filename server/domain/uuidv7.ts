import crypto from 'node:crypto';

/**
 * Time-ordered UUIDs (version 7, RFC 9562 §5.7): the Unix time in milliseconds, then a counter,
 * then 62 random bits. Ids made later sort after earlier ones, as text and as bytes, so rows keyed
 * by them are appended in key order. Within one millisecond the 12-bit counter keeps that order
 * (RFC 9562 §6.2, method 1): it starts from a random value in its lower half, and when it runs out
 * the time moves on a millisecond early. A clock that goes back does not take the ids back with it.
 */
let lastMs = -1;
let counter = 0;

// Random bytes drawn a pool at a time: one call to the generator per 256 ids.
const TAIL_BYTES = 8;
const pool = new Uint8Array(TAIL_BYTES * 256);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function uuidV7(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = crypto.randomInt(0x800);
  } else if (++counter > 0xfff) {
    lastMs += 1;
    counter = 0;
  }
  if (poolOffset === pool.length) {
    crypto.randomFillSync(pool);
    poolOffset = 0;
  }
  const time = lastMs.toString(16).padStart(12, '0');
  const r = pool.subarray(poolOffset, (poolOffset += TAIL_BYTES));
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-${(0x7000 | counter).toString(16)}-` +
    `${HEX[0x80 | (r[0]! & 0x3f)]}${HEX[r[1]!]}-${HEX[r[2]!]}${HEX[r[3]!]}${HEX[r[4]!]}${HEX[r[5]!]}${HEX[r[6]!]}${HEX[r[7]!]}`
  );
}

import type { Kysely } from 'kysely';
import type { Database } from '../db/types';

/**
 * `last_used_at` of sessions and API keys is kept to the minute: a credential's use is written
 * when the last write this instance made for it is a minute old or more, so a burst of queries
 * costs one extra write a minute rather than one per query. What the profile shows is therefore
 * at most a minute (plus one request's time) behind, on each instance.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Credentials remembered per instance; beyond it the oldest are forgotten (and simply written again). */
const REMEMBERED = 10_000;

export function activityRecorder(db: Kysely<Database>, onError: (error: unknown) => void) {
  const written = new Map<string, number>();
  return (credentialId: string, now: number): void => {
    const last = written.get(credentialId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    written.delete(credentialId);
    if (written.size >= REMEMBERED) written.delete(written.keys().next().value!);
    written.set(credentialId, now);
    // Off the request's path: a lost write only makes the time shown older.
    db.insertInto('credential_activity')
      .values({ credential_id: credentialId, last_used_at: now })
      .onConflict((oc) => oc.column('credential_id').doUpdateSet({ last_used_at: now }))
      .execute()
      .catch(onError);
  };
}

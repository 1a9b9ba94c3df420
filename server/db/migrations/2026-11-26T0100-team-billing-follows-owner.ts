import type { Kysely } from 'kysely';

/** How many passes: a team skipped because its owner still bills an older team may be freed by a later one. */
const PASSES = 3;

interface SubscriptionRow {
  user_id: string;
  plan: string;
  status: string;
  current_period_end: number | string | null;
  updated_at: number;
}

/** The tables as this migration knows them. */
interface Schema {
  teams: { id: string; billing_user_id: string; updated_at: number };
  team_members: { team_id: string; user_id: string; role: string };
  subscriptions: SubscriptionRow;
}

/**
 * A team's billing follows ownership (issue 33): its billing user is its owner, and its running
 * Team subscription is the owner's. Teams handed over before this kept their billing with the former
 * owner; this moves it to the owner, as a transfer now does, wherever that loses and doubles nothing.
 * Left as they were, for support to settle by hand: a team whose owner pays for a running plan of
 * their own (two subscriptions for one person), and one whose owner still bills another team.
 * Plain queries with the rules copied in: a migration must not change when the code does.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(anyDb: Kysely<unknown>): Promise<void> {
  const db = anyDb as unknown as Kysely<Schema>;
  const now = Date.now();
  const runs = (row: SubscriptionRow | undefined) =>
    row !== undefined && (row.status === 'active' || row.status === 'past_due') && (row.current_period_end === null || Number(row.current_period_end) > now);
  for (let pass = 0; pass < PASSES; pass++) {
    const stale = await db
      .selectFrom('teams')
      .innerJoin('team_members', (join) => join.onRef('team_members.team_id', '=', 'teams.id').on('team_members.role', '=', 'owner'))
      .select(['teams.id', 'teams.billing_user_id', 'team_members.user_id as owner_id'])
      .whereRef('teams.billing_user_id', '<>', 'team_members.user_id')
      .execute();
    let moved = 0;
    for (const team of stale) {
      const billsAnother = await db.selectFrom('teams').select('id').where('billing_user_id', '=', team.owner_id).executeTakeFirst();
      if (billsAnother) continue;
      const paying = await db.selectFrom('subscriptions').selectAll().where('user_id', '=', team.billing_user_id).executeTakeFirst();
      const own = await db.selectFrom('subscriptions').selectAll().where('user_id', '=', team.owner_id).executeTakeFirst();
      const teams = paying?.plan === 'team' && paying.status !== 'canceled';
      if (teams && runs(own)) continue;
      if (teams) {
        await db.deleteFrom('subscriptions').where('user_id', '=', team.owner_id).execute();
        await db.updateTable('subscriptions').set({ user_id: team.owner_id, updated_at: now }).where('user_id', '=', team.billing_user_id).execute();
      }
      await db.updateTable('teams').set({ billing_user_id: team.owner_id, updated_at: now }).where('id', '=', team.id).execute();
      moved++;
    }
    if (moved === 0) return;
  }
}

/** Nothing to undo: the rows read the same to the code before it, an owner billing their team. */
export async function down(): Promise<void> {}

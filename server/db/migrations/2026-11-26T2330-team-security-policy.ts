import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * The team's security policy (decisions.md, "Team security policy"): whether members must have a
 * second factor, and how many hours a member's session lasts (null: the usual 30 days). The session
 * check reads whether a member has a passkey, so on SQLite every change to passkeys moves
 * `account_generation`, like the other tables it reads (server/db/keyedReads.ts).
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('teams').addColumn('require_two_factor', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('teams').addColumn('session_max_age_hours', 'integer').execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const change of ['insert', 'update', 'delete']) {
      await sql
        .raw(
          `create trigger webauthn_credentials_${change}_generation after ${change} on webauthn_credentials
           begin update account_generation set generation = generation + 1 where id = 1; end`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const change of ['insert', 'update', 'delete']) await sql.raw(`drop trigger webauthn_credentials_${change}_generation`).execute(db);
  }
  await db.schema.alterTable('teams').dropColumn('session_max_age_hours').execute();
  await db.schema.alterTable('teams').dropColumn('require_two_factor').execute();
}

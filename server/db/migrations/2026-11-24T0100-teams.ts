import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** The team tables the session check reads (a member's plan is the team's): they move `account_generation` too. */
const SESSION_TABLES = ['teams', 'team_members'];
const CHANGES = ['insert', 'update', 'delete'];

/**
 * Team workspaces (decisions.md, "Teams: what the Team plan promises"). The rules that must hold
 * under any interleaving are constraints, not checks in code:
 * - a user is in at most one team: `team_members.user_id` is unique;
 * - a team has at most one owner: a unique index over its owner rows; code never removes or
 *   demotes an owner row except in the transaction that promotes the next one (a transfer);
 * - one pending invitation per address and team: a unique index over the pending rows.
 * Invitation tokens are stored only as hashes. The audit log is written, never updated.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // The user whose Team subscription pays for the team: its plan is the members' plan.
    .addColumn('billing_user_id', 'text', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('default_monthly_query_cap', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('monthly_query_cap', 'integer', (c) => c.check(sql`monthly_query_cap is null or monthly_query_cap >= 0`))
    .addColumn('joined_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_one_owner').on('team_members').column('team_id').unique().where(sql.ref('role'), '=', 'owner').execute();

  await db.schema
    .createTable('team_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'member')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'accepted', 'revoked', 'expired')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('team_invitations_one_pending')
    .on('team_invitations')
    .columns(['team_id', 'email'])
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  // The queries each member made for the team in each UTC month: the counter a member cap is
  // taken from by one conditional upsert, as the plan's monthly counter is.
  await db.schema
    .createTable('team_member_months')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('queries', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_member_months_pk', ['team_id', 'user_id', 'month'])
    .execute();

  // Names are copied into each event: the log still reads right after a member left or was renamed.
  await db.schema
    .createTable('team_audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('target_name', 'text')
    .addColumn('detail', 'text')
    .addColumn('ip', 'text')
    .execute();
  await db.schema.createIndex('team_audit_log_by_team').on('team_audit_log').columns(['team_id', 'id']).execute();

  // The team a member's query was made for; null for queries made outside a team.
  await db.schema.alterTable('usage_ledger').addColumn('team_id', 'text').execute();
  await db.schema.createIndex('usage_ledger_by_team').on('usage_ledger').columns(['team_id', 'month']).execute();

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const table of SESSION_TABLES) {
      for (const change of CHANGES) {
        await sql
          .raw(
            `create trigger ${table}_${change}_generation after ${change} on ${table}
             begin update account_generation set generation = generation + 1 where id = 1; end`,
          )
          .execute(db);
      }
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const table of SESSION_TABLES) {
      for (const change of CHANGES) await sql.raw(`drop trigger ${table}_${change}_generation`).execute(db);
    }
  }
  await db.schema.dropIndex('usage_ledger_by_team').execute();
  await db.schema.alterTable('usage_ledger').dropColumn('team_id').execute();
  for (const table of ['team_audit_log', 'team_member_months', 'team_invitations', 'team_members', 'teams']) {
    await db.schema.dropTable(table).execute();
  }
}

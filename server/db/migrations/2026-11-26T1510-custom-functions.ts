import type { Kysely } from 'kysely';

/**
 * Custom functions (decisions.md, "Professional's promises"): saved prompts the add-on offers as
 * cell functions. A function belongs to one owner, a person (`personal`) or a team (`team`), named
 * by `owner_key` (`user:<id>` or `team:<id>`), under which its name is unique; `user_id` is who
 * made it (for a team's, the admin who did).
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('custom_functions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_key', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.references('teams.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('task', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('custom_functions_owner_name', ['owner_key', 'name'])
    .execute();
  await db.schema.createIndex('custom_functions_by_user').on('custom_functions').column('user_id').execute();
  await db.schema.createIndex('custom_functions_by_team').on('custom_functions').column('team_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('custom_functions').execute();
}

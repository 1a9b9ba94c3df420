import type { Kysely } from 'kysely';

/**
 * What the add-on needs to act for an account: device sign-in grants (RFC 8628), API keys, the
 * kind and origin of each session, when each credential was last used, and which credential made
 * each query.
 *
 * Last use is its own table rather than a column of `sessions`: on SQLite every change to
 * `sessions` moves the account generation and drops the session check's kept answers
 * (2026-11-23T0500), and a timestamp touched by use would do that all day.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('kind', 'text', (c) => c.notNull().defaultTo('web')).execute();
  await db.schema.alterTable('sessions').addColumn('client_id', 'text').execute();
  // Space-separated OAuth scopes of an add-on session; null for a web session, which has them all.
  await db.schema.alterTable('sessions').addColumn('scopes', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();

  // Codes are stored only as SHA-256 hashes; `status` moves pending → approved | denied → used.
  await db.schema
    .createTable('device_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('device_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('interval_s', 'integer', (c) => c.notNull())
    .addColumn('last_polled_at', 'bigint')
    .addColumn('decided_at', 'bigint')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_user_id').on('api_keys').column('user_id').execute();

  // A session's or a key's last use, written at most once a minute per credential and instance.
  await db.schema
    .createTable('credential_activity')
    .addColumn('credential_id', 'text', (c) => c.primaryKey())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute();

  // Which credential made each query: `web`, `addon` or `key`, and the session's or key's id.
  await db.schema.alterTable('usage_ledger').addColumn('credential_kind', 'text').execute();
  await db.schema.alterTable('usage_ledger').addColumn('credential_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_ledger').dropColumn('credential_id').execute();
  await db.schema.alterTable('usage_ledger').dropColumn('credential_kind').execute();
  await db.schema.dropTable('credential_activity').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('device_grants').execute();
  for (const column of ['user_agent', 'ip', 'scopes', 'client_id', 'kind']) {
    await db.schema.alterTable('sessions').dropColumn(column).execute();
  }
}

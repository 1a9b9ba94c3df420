import type { Generated } from 'kysely';

/** Times are stored as epoch milliseconds (INTEGER on SQLite, BIGINT on PostgreSQL): one shape on both engines. */
export interface UsersTable {
  id: string;
  email: string;
  username: string;
  /** Lower-cased username, unique: usernames are unique without regard to case. */
  username_key: string;
  full_name: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

export interface Database {
  users: UsersTable;
}

export type Engine = 'sqlite' | 'postgres';

// Re-exported so migrations and repositories name one source for column helpers.
export type { Generated };

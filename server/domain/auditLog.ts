import type { Kysely, Transaction } from 'kysely';
import type { AuditAction, AuditEvent, AuditPage } from '../../contract/teams';
import type { Database } from '../db/types';
import { uuidV7 } from './uuidv7';

type Db = Kysely<Database> | Transaction<Database>;

export interface Person {
  id: string;
  name: string;
}

/** Who did something: a person, or a system (a payment provider) with no account of its own (`id` null). */
export interface AuditActor {
  id: string | null;
  name: string;
}

export interface AuditEntry {
  teamId: string;
  actor: AuditActor | null;
  action: AuditAction;
  target?: { id: string | null; name: string } | null;
  detail?: string | null;
  ip: string | null;
  at: number;
}

/** Appends one event, in the transaction of the change it records, so one is never kept without the other. */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('team_audit_log')
    .values({
      id: uuidV7(),
      team_id: entry.teamId,
      at: entry.at,
      actor_id: entry.actor?.id ?? null,
      actor_name: entry.actor?.name ?? null,
      action: entry.action,
      target_id: entry.target?.id ?? null,
      target_name: entry.target?.name ?? null,
      detail: entry.detail ?? null,
      ip: entry.ip,
    })
    .execute();
}

export const AUDIT_PAGE_SIZE = 50;

/** A page of the team's events, newest first, older than the event `before` when given; `next` is the cursor of the page after. */
export async function auditPage(db: Db, teamId: string, before: string | null, pageSize = AUDIT_PAGE_SIZE): Promise<AuditPage> {
  const rows = await db
    .selectFrom('team_audit_log')
    .selectAll()
    .where('team_id', '=', teamId)
    .$if(before !== null, (query) => query.where('id', '<', before!))
    .orderBy('id', 'desc')
    .limit(pageSize + 1)
    .execute();
  const page = rows.slice(0, pageSize);
  const events: AuditEvent[] = page.map((row) => ({
    id: row.id,
    at: new Date(Number(row.at)).toISOString(),
    actor: row.actor_name === null ? null : { user_id: row.actor_id, name: row.actor_name },
    action: row.action as AuditAction,
    target: row.target_name === null ? null : { user_id: row.target_id, name: row.target_name, detail: row.detail },
    ip: row.ip,
  }));
  return { events, next: rows.length > pageSize ? page.at(-1)!.id : null };
}

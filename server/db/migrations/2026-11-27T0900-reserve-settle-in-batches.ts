import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * PostgreSQL only: `reserve_queries` and `settle_queries`, several calls of `reserve_query` or
 * `settle_query` (migration 2026-11-26T1510) in one statement, so in one transaction and one
 * commit. Each call runs in a block of its own: a refusal (SMMON, SMDAY, SMCAP, SMDUP, SMNRS)
 * takes back that call's writes only and comes back as its row's `refused` and `message`; any
 * other error ends the statement and keeps nothing. Rows come back with the 1-based number of
 * their call. The calls run in the order given: the caller sorts them by user, the order of every
 * lock they take (each call locks only its user's rows), so two batches never wait on each other
 * both ways.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
create function reserve_queries(
  p_user_ids text[], p_request_ids text[], p_tasks text[], p_credential_kinds text[], p_credential_ids text[],
  p_months text[], p_days text[], p_nows bigint[], p_query_limits integer[], p_token_limits integer[], p_floors integer[], p_caps integer[]
) returns table (call_number integer, granted integer, team_id text, refused text, message text) language plpgsql as $$
#variable_conflict use_column
declare
  i integer;
begin
  for i in 1 .. coalesce(array_length(p_user_ids, 1), 0) loop
    call_number := i;
    refused := null;
    message := null;
    begin
      select r.granted, r.team_id into granted, team_id from reserve_query(p_user_ids[i], p_request_ids[i], p_tasks[i],
        p_credential_kinds[i], p_credential_ids[i], p_months[i], p_days[i], p_nows[i], p_query_limits[i], p_token_limits[i],
        p_floors[i], p_caps[i]) r;
    exception when sqlstate 'SMMON' or sqlstate 'SMDAY' or sqlstate 'SMCAP' or sqlstate 'SMDUP' then
      granted := null;
      team_id := null;
      get stacked diagnostics refused = returned_sqlstate, message = message_text;
    end;
    return next;
  end loop;
end $$`.execute(db);

  await sql`
create function settle_queries(
  p_user_ids text[], p_request_ids text[], p_months text[], p_days text[], p_unused integer[],
  p_prompt_tokens integer[], p_completion_tokens integer[], p_processing_ms integer[], p_nows bigint[], p_now_months text[], p_now_days text[]
) returns table (
  call_number integer, monthly_queries integer, settled integer, processing_ms bigint, daily_tokens integer, queries_per_minute bigint,
  total_queries bigint, refused text, message text
) language plpgsql as $$
#variable_conflict use_column
declare
  i integer;
  v record;
begin
  for i in 1 .. coalesce(array_length(p_user_ids, 1), 0) loop
    call_number := i;
    refused := null;
    message := null;
    begin
      select * into v from settle_query(p_user_ids[i], p_request_ids[i], p_months[i], p_days[i], p_unused[i],
        p_prompt_tokens[i], p_completion_tokens[i], p_processing_ms[i], p_nows[i], p_now_months[i], p_now_days[i]);
      monthly_queries := v.monthly_queries;
      settled := v.settled;
      processing_ms := v.processing_ms;
      daily_tokens := v.daily_tokens;
      queries_per_minute := v.queries_per_minute;
      total_queries := v.total_queries;
    exception when sqlstate 'SMNRS' then
      monthly_queries := null;
      settled := null;
      processing_ms := null;
      daily_tokens := null;
      queries_per_minute := null;
      total_queries := null;
      get stacked diagnostics refused = returned_sqlstate, message = message_text;
    end;
    return next;
  end loop;
end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`drop function settle_queries`.execute(db);
  await sql`drop function reserve_queries`.execute(db);
}

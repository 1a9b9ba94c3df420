import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * PostgreSQL only: `reserve_query` and `settle_query`, the two units of a query whose provider
 * does I/O (usage.ts `reserveQuery` and `settleQuery`), each as one function: one round trip and
 * one commit each, where the units took about fourteen statements between them, each a round trip
 * on a pooled connection and about a fifth of a millisecond of the server's CPU (the slow-model
 * bench measured 3.4 ms of CPU a query on PostgreSQL against 1.3 on SQLite).
 *
 * They run the statements of the units in the same order (month, day, member month, ledger,
 * second: the lock order of every metering unit). `reserve_query` refuses as `answer_query` does
 * (SMMON, SMDAY, SMCAP with the cap as message, SMDUP), keeping nothing, and answers the tokens
 * granted and the team; `settle_query` answers the usage row at its time, or raises SMNRS when
 * the request is not reserved.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
create function reserve_query(
  p_user_id text, p_request_id text, p_task text, p_credential_kind text, p_credential_id text,
  p_month text, p_day text, p_now bigint, p_query_limit integer, p_token_limit integer, p_floor integer, p_cap integer
) returns table (granted integer, team_id text) language plpgsql as $$
#variable_conflict use_column
declare
  v_second bigint := floor(p_now / 1000);
  v_day record;
  v_member record;
  v_seconds integer;
begin
  if p_query_limit = 0 then
    raise exception 'monthly quota' using errcode = 'SMMON';
  end if;
  insert into usage_months as m (user_id, month, queries, settled, processing_ms) values (p_user_id, p_month, 1, 0, 0)
    on conflict (user_id, month) do update set queries = m.queries + 1
    where p_query_limit < 0 or m.queries < p_query_limit;
  if not found then
    raise exception 'monthly quota' using errcode = 'SMMON';
  end if;

  insert into usage_days as d (user_id, day, queries, tokens, last_grant) values (p_user_id, p_day, 1, least(p_cap, p_token_limit), least(p_cap, p_token_limit))
    on conflict (user_id, day) do update set
      queries = d.queries + 1,
      tokens = d.tokens + least(p_cap, p_token_limit - d.tokens),
      last_grant = least(p_cap, p_token_limit - d.tokens)
    where d.tokens + p_floor <= p_token_limit
    returning d.last_grant into v_day;
  if not found then
    raise exception 'daily tokens' using errcode = 'SMDAY';
  end if;

  select tm.team_id, tm.monthly_query_cap into v_member from team_members tm where tm.user_id = p_user_id;
  if found then
    if v_member.monthly_query_cap = 0 then
      raise exception '%', v_member.monthly_query_cap using errcode = 'SMCAP';
    end if;
    insert into team_member_months as mm (team_id, user_id, month, queries) values (v_member.team_id, p_user_id, p_month, 1)
      on conflict (team_id, user_id, month) do update set queries = mm.queries + 1
      where (select c.monthly_query_cap from team_members c where c.team_id = mm.team_id and c.user_id = mm.user_id) is null
         or mm.queries < (select c.monthly_query_cap from team_members c where c.team_id = mm.team_id and c.user_id = mm.user_id);
    if not found then
      raise exception '%', v_member.monthly_query_cap using errcode = 'SMCAP';
    end if;
  end if;

  insert into usage_ledger (user_id, request_id, task, month, day, status, reserved_tokens, prompt_tokens, completion_tokens,
      processing_time_ms, created_at, settled_at, team_id, credential_kind, credential_id)
    values (p_user_id, p_request_id, p_task, p_month, p_day, 'reserved', v_day.last_grant, null, null,
      null, p_now, null, v_member.team_id, p_credential_kind, p_credential_id)
    on conflict (user_id, request_id) do nothing;
  if not found then
    raise exception 'duplicate request' using errcode = 'SMDUP';
  end if;

  insert into usage_seconds as s (user_id, second, queries) values (p_user_id, v_second, 1)
    on conflict (user_id, second) do update set queries = s.queries + 1
    returning s.queries into v_seconds;
  if v_seconds = 1 then
    delete from usage_seconds s where s.user_id = p_user_id and s.second <= v_second - 60;
  end if;

  return query select v_day.last_grant, v_member.team_id;
end $$`.execute(db);

  await sql`
create function settle_query(
  p_user_id text, p_request_id text, p_month text, p_day text, p_unused integer,
  p_prompt_tokens integer, p_completion_tokens integer, p_processing_ms integer, p_now bigint, p_now_month text, p_now_day text
) returns table (
  monthly_queries integer, settled integer, processing_ms bigint, daily_tokens integer, queries_per_minute bigint, total_queries bigint
) language plpgsql as $$
#variable_conflict use_column
declare
  v_second bigint := floor(p_now / 1000);
begin
  update usage_months m set settled = m.settled + 1, processing_ms = m.processing_ms + p_processing_ms
    where m.user_id = p_user_id and m.month = p_month;
  if p_unused <> 0 then
    update usage_days d set tokens = d.tokens - p_unused where d.user_id = p_user_id and d.day = p_day;
  end if;
  update usage_ledger l set status = 'settled', prompt_tokens = p_prompt_tokens, completion_tokens = p_completion_tokens,
      processing_time_ms = p_processing_ms, settled_at = p_now
    where l.user_id = p_user_id and l.request_id = p_request_id and l.status = 'reserved';
  if not found then
    raise exception 'not reserved' using errcode = 'SMNRS';
  end if;
  return query select
    coalesce(m.queries, 0), coalesce(m.settled, 0), coalesce(m.processing_ms, 0)::bigint,
    coalesce((select d.tokens from usage_days d where d.user_id = p_user_id and d.day = p_now_day), 0),
    coalesce((select sum(s.queries) from usage_seconds s where s.user_id = p_user_id and s.second > v_second - 60 and s.second <= v_second), 0)::bigint,
    coalesce((select sum(t.queries) from usage_months t where t.user_id = p_user_id), 0)::bigint
    from (select 1) as always left join usage_months m on m.user_id = p_user_id and m.month = p_now_month;
end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`drop function settle_query`.execute(db);
  await sql`drop function reserve_query`.execute(db);
}

import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * PostgreSQL only: `answer_query`, the unit of a query whose answer is worked out in memory
 * (usage.ts `answerQuery`), as one function, so a query is one round trip instead of about ten
 * statements in a transaction, each a round trip on a pooled connection.
 *
 * It runs the same statements in the same order as the unit (month, day, member month, ledger,
 * second: the lock order of every metering unit) and answers the same usage row. It refuses by
 * raising, which rolls back the whole call: SMMON monthly quota, SMDAY daily tokens, SMCAP member
 * cap (message: the cap), SMDUP request id already taken, SMPAR the day could grant only part of
 * the answer's tokens (the caller then answers within the part, in the unit of usage.ts).
 *
 * SQLite has no functions of this kind; its units already run in-process without round trips.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
create function answer_query(
  p_user_id text, p_request_id text, p_task text, p_credential_kind text, p_credential_id text,
  p_month text, p_day text, p_now bigint, p_query_limit integer, p_token_limit integer,
  p_prompt_tokens integer, p_floor integer, p_completion_tokens integer, p_processing_ms integer
) returns table (
  monthly_queries integer, settled integer, processing_ms bigint, daily_tokens integer,
  queries_per_minute bigint, total_queries bigint, team_id text
) language plpgsql as $$
#variable_conflict use_column
declare
  v_cap integer := p_prompt_tokens + p_completion_tokens;
  v_second bigint := floor(p_now / 1000);
  v_month record;
  v_day record;
  v_member record;
  v_seconds integer;
begin
  if p_query_limit = 0 then
    raise exception 'monthly quota' using errcode = 'SMMON';
  end if;
  insert into usage_months as m (user_id, month, queries, settled, processing_ms) values (p_user_id, p_month, 1, 1, p_processing_ms)
    on conflict (user_id, month) do update set
      queries = m.queries + 1, settled = m.settled + 1, processing_ms = m.processing_ms + p_processing_ms
    where p_query_limit < 0 or m.queries < p_query_limit
    returning m.queries, m.settled, m.processing_ms into v_month;
  if not found then
    raise exception 'monthly quota' using errcode = 'SMMON';
  end if;

  insert into usage_days as d (user_id, day, queries, tokens, last_grant) values (p_user_id, p_day, 1, least(v_cap, p_token_limit), least(v_cap, p_token_limit))
    on conflict (user_id, day) do update set
      queries = d.queries + 1,
      tokens = d.tokens + least(v_cap, p_token_limit - d.tokens),
      last_grant = least(v_cap, p_token_limit - d.tokens)
    where d.tokens + p_floor <= p_token_limit
    returning d.last_grant, d.tokens into v_day;
  if not found then
    raise exception 'daily tokens' using errcode = 'SMDAY';
  end if;
  if v_day.last_grant < v_cap then
    raise exception 'partial grant' using errcode = 'SMPAR';
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
    values (p_user_id, p_request_id, p_task, p_month, p_day, 'settled', v_cap, p_prompt_tokens, p_completion_tokens,
      p_processing_ms, p_now, p_now, v_member.team_id, p_credential_kind, p_credential_id)
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

  return query select v_month.queries, v_month.settled, v_month.processing_ms, v_day.tokens,
    coalesce((select sum(s.queries) from usage_seconds s where s.user_id = p_user_id and s.second > v_second - 60 and s.second <= v_second), 0)::bigint,
    coalesce((select sum(m.queries) from usage_months m where m.user_id = p_user_id), 0)::bigint,
    v_member.team_id;
end $$`.execute(db);

  // The queries of one turn of the server's event loop, in one call and one commit: each in a
  // block of its own (a subtransaction), so a refused one keeps nothing and the others stay; in
  // the order of their users, so that two batches lock shared users' rows in one order.
  await sql`
create function answer_queries(p_batch jsonb) returns table (
  n integer, refusal text, detail text, monthly_queries integer, settled integer, processing_ms bigint,
  daily_tokens integer, queries_per_minute bigint, total_queries bigint, team_id text
) language plpgsql as $$
#variable_conflict use_column
declare
  q record;
  a record;
begin
  for q in select * from jsonb_to_recordset(p_batch) as x(
      n integer, user_id text, request_id text, task text, credential_kind text, credential_id text, month text, day text, now bigint,
      query_limit integer, token_limit integer, prompt_tokens integer, floor integer, completion_tokens integer, processing_ms integer)
    order by x.user_id, x.n
  loop
    begin
      select * into a from answer_query(q.user_id, q.request_id, q.task, q.credential_kind, q.credential_id, q.month, q.day, q.now,
        q.query_limit, q.token_limit, q.prompt_tokens, q.floor, q.completion_tokens, q.processing_ms);
      return query select q.n, null::text, null::text, a.monthly_queries, a.settled, a.processing_ms, a.daily_tokens,
        a.queries_per_minute, a.total_queries, a.team_id;
    exception when sqlstate 'SMMON' or sqlstate 'SMDAY' or sqlstate 'SMCAP' or sqlstate 'SMDUP' or sqlstate 'SMPAR' then
      return query select q.n, SQLSTATE, SQLERRM, null::integer, null::integer, null::bigint, null::integer, null::bigint, null::bigint, null::text;
    end;
  end loop;
end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`drop function answer_queries`.execute(db);
  await sql`drop function answer_query`.execute(db);
}

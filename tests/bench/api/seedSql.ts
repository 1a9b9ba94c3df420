import type { Engine } from '../../../server/db/types';
import { periodsAt } from '../../../server/domain/usageReport';

/**
 * The SQL that seeds a database as months of use would have filled it, on either engine: one text
 * per statement, the few differences between the engines in `DIALECTS`. Nothing goes through the
 * API or the app's code, so millions of rows take minutes, not hours.
 *
 * Invariants of what it writes:
 * - The counters agree with the ledger: each usage_days row is its user's ledger rows of that day
 *   (queries, and tokens as prompt plus completion), each usage_months row the sum of its days
 *   (queries, settled, processing time). Every seeded query is settled.
 * - Exactly the number of ledger rows asked for, over the 13 months before today (none today, so
 *   the bench's own queries start every day afresh): a user's active days are spread over the whole
 *   span, 1 to 9 queries a day, 5 on average. 13 months is what the retention job keeps by default
 *   (RETENTION_MONTHS), so a database long in use stays about this deep.
 * - Request ids are UUIDv7 of the row's created_at, as the server makes them, and each batch is
 *   inserted in their order: the ledger's key order (2026-11-23T0600), so the tables and indexes
 *   are laid out as an append-only history leaves them.
 * - Only temp tables (`seed_*`) are made besides the app's rows; `DROP_TEMP` removes them.
 */

const DAY_MS = 86_400_000;
/** Most queries a seeded user makes in a day. */
const MAX_DAILY = 9;
/** Queries in one cycle of daily counts 1, 2, …, 9. */
const CYCLE = (MAX_DAILY * (MAX_DAILY + 1)) / 2;
/** Integer literals that may overflow PostgreSQL's 32-bit integers when multiplied. */
const DAY = `cast(${DAY_MS} as bigint)`;
const HALF_DAY = `cast(${DAY_MS / 2} as bigint)`;

interface Dialect {
  /** A random UUIDv4, as text. */
  uuid: string;
  /** 32 random hex digits. */
  randomHex: string;
  /** An integer as 12 hex digits, zero-padded. */
  hex12(expr: string): string;
}

const DIALECTS: Record<Engine, Dialect> = {
  sqlite: {
    uuid: `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`,
    randomHex: 'lower(hex(randomblob(16)))',
    hex12: (expr) => `printf('%012x', ${expr})`,
  },
  postgres: {
    uuid: 'gen_random_uuid()::text',
    randomHex: 'md5(random()::text)',
    hex12: (expr) => `lpad(to_hex(${expr}), 12, '0')`,
  },
};

/** One statement, named for the progress lines. */
export interface Statement {
  what: string;
  sql: string;
}

export interface CalendarDay {
  day: string;
  month: string;
  starts: number;
}

/** The UTC days from this date 13 months ago to yesterday, oldest first. */
export function calendarBefore(now: number): CalendarDay[] {
  const today = new Date(now);
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const first = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 13, today.getUTCDate());
  const days: CalendarDay[] = [];
  for (let starts = first; starts < end; starts += DAY_MS) {
    const { day, month } = periodsAt(starts);
    days.push({ day, month, starts });
  }
  return days;
}

const FIRST_NAMES = ['Olivia', 'Liam', 'Emma', 'Noah', 'Amelia', 'Oliver', 'Sophia', 'Elijah', 'Mia', 'Lucas', 'Aisha', 'Mateo', 'Yuki', 'Chen', 'Priya', 'Jonas', 'Fatima', 'Diego', 'Ingrid', 'Kwame'];
const LAST_NAMES = ['Smith', 'Garcia', 'Meyer', 'Rossi', 'Nguyen', 'Kowalski', 'Silva', 'Tanaka', 'Okafor', 'Johansson', 'Dubois', 'Khan', 'Novak', 'Haddad', 'Cohen', 'Moreau', 'Ivanova', 'Park', 'Murphy', 'Santos'];
/** A well-formed argon2id hash that no password matches: the seeded users cannot sign in. */
const NO_PASSWORD = `'$argon2id$v=19$m=19456,t=2,p=1$c2VlZGVkLXVzZXItc2FsdA$${'A'.repeat(43)}'`;

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The temp tables every seeding uses: the calendar, a counter of the queries of a day, the users. */
export function setUp(calendar: CalendarDay[]): Statement[] {
  const days = calendar.map((d, j) => `(${j}, ${quote(d.day)}, ${quote(d.month)}, ${d.starts})`).join(', ');
  const counter = Array.from({ length: MAX_DAILY }, (_, i) => `(${i + 1})`).join(', ');
  const names = FIRST_NAMES.map((first, i) => `(${i}, ${quote(first)}, ${quote(LAST_NAMES[i]!)})`).join(', ');
  return [
    { what: 'calendar', sql: 'create temp table seed_calendar (j integer primary key, day text not null, month text not null, starts bigint not null)' },
    { what: 'calendar', sql: `insert into seed_calendar (j, day, month, starts) values ${days}` },
    { what: 'counter', sql: 'create temp table seed_counter (x integer primary key)' },
    { what: 'counter', sql: `insert into seed_counter (x) values ${counter}` },
    { what: 'names', sql: 'create temp table seed_names (i integer primary key, given text not null, family text not null)' },
    { what: 'names', sql: `insert into seed_names (i, given, family) values ${names}` },
    { what: 'users', sql: 'create temp table seed_users (n integer primary key, id text not null, session_id text not null)' },
  ];
}

/** The users to give history to: the bench's own, registered through the API. */
export function existingUsers(engine: Engine, ids: string[]): Statement[] {
  for (const id of ids) if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error(`not a user id: ${id}`);
  const rows = ids.map((id, i) => `(${i + 1}, ${quote(id)}, ${DIALECTS[engine].uuid})`).join(', ');
  return [{ what: 'users', sql: `insert into seed_users (n, id, session_id) values ${rows}` }];
}

/**
 * `count` new users who signed up before the calendar's first day, each with a web session; one in
 * ten pays for Professional and one in twenty-five for Team.
 */
export function newUsers(engine: Engine, count: number, calendar: CalendarDay[], now: number): Statement[] {
  const { uuid } = DIALECTS[engine];
  const signedUp = `${calendar[0]!.starts} - (n % 400) * ${DAY} - (n * 7919) % ${DAY_MS}`;
  const since = `${now} - (n % 30) * ${DAY}`;
  return [
    {
      what: 'user ids',
      sql: `insert into seed_users (n, id, session_id)
        with recursive series(n) as (select 1 union all select n + 1 from series where n < ${count})
        select n, ${uuid}, ${uuid} from series`,
    },
    {
      what: 'users',
      sql: `insert into users (id, email, username, username_key, full_name, password_hash, created_at, updated_at)
        select u.id, lower(g.given) || '.' || lower(f.family) || u.n || '@example.net', g.given || '_' || u.n, lower(g.given) || '_' || u.n,
          g.given || ' ' || f.family, ${NO_PASSWORD}, ${signedUp}, ${signedUp}
        from seed_users u join seed_names g on g.i = u.n % 20 join seed_names f on f.i = (u.n / 20) % 20`,
    },
    {
      what: 'sessions',
      sql: `insert into sessions (id, user_id, created_at, expires_at, revoked_at, revoked_reason, kind, client_id, scopes, ip, user_agent)
        select session_id, id, ${since}, ${since} + 30 * ${DAY}, null, null, 'web', null, null, '198.51.100.' || (n % 250 + 1),
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
        from seed_users`,
    },
    {
      what: 'subscriptions',
      sql: `insert into subscriptions (user_id, plan, status, current_period_start, current_period_end, cancel_at_period_end, scheduled_plan,
          provider, provider_customer_id, provider_subscription_id, provider_updated_at, updated_at)
        select id, case when n % 25 = 0 then 'team' else 'professional' end, 'active', ${since}, ${since} + 30 * ${DAY}, 0, null,
          'test', 'cus_test_seed_' || n, 'sub_test_seed_' || n, ${since}, ${since}
        from seed_users where n % 10 = 0 or n % 25 = 0`,
    },
  ];
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * `ledgerRows` queries of the seed_users over the calendar: the users' days (`seed_days`), the
 * counters from them, then the ledger a calendar month at a time, in request-id order.
 */
export function usage(engine: Engine, users: number, ledgerRows: number, calendar: CalendarDay[]): Statement[] {
  const { randomHex, hex12 } = DIALECTS[engine];
  const span = calendar.length;
  // Day rows d = 0, 1, …: user d % users, its (d / users)-th active day, which steps through the
  // calendar by `step` (prime to the span, so a user's days are distinct); full cycles of 1..9
  // queries, then what is left in days of at most 9.
  const cycles = Math.floor(ledgerRows / CYCLE);
  const full = cycles * MAX_DAILY;
  const rest = ledgerRows - cycles * CYCLE;
  const dayRows = full + Math.ceil(rest / MAX_DAILY);
  if (Math.ceil(dayRows / users) > span) throw new Error(`${ledgerRows} ledger rows are too many for ${users} users over ${span} days`);
  const step = [7, 11, 13, 17].find((s) => gcd(s, span) === 1)!;
  const lastDays = `${rest} - ${MAX_DAILY} * (d - ${full})`;
  const queries = `case when d < ${full} then 1 + d % ${MAX_DAILY} when ${lastDays} >= ${MAX_DAILY} then ${MAX_DAILY} else ${lastDays} end`;
  const created = `cal.starts + (2 * (s.earlier + x.x) - 1) * ${HALF_DAY} / s.total`;
  const byMonth = new Map<string, number[]>();
  calendar.forEach((d, j) => byMonth.set(d.month, [...(byMonth.get(d.month) ?? []), j]));
  return [
    {
      what: 'days',
      sql: `create temp table seed_days as
        with recursive series(d) as (select 0 union all select d + 1 from series where d < ${dayRows - 1}),
        rows_of_days as (
          select d, u.id as user_id, u.session_id, (u.n * 37 + (d / ${users}) * ${step}) % ${span} as j,
            ${queries} as q,
            60 + (d * 37) % 120 as p, 20 + (d * 11) % 80 as c, 150 + (d * 13) % 1500 as ms,
            case d % 5 when 0 then 'analyze' when 1 then 'formula' when 2 then 'explain' when 3 then 'guide' else 'ask' end as task
          from series join seed_users u on u.n = d % ${users} + 1
        )
        select j, d, user_id, session_id, q, p, c, ms, task,
          sum(q) over (partition by j order by d rows between unbounded preceding and current row) - q as earlier,
          sum(q) over (partition by j) as total
        from rows_of_days`,
    },
    { what: 'days', sql: 'create index seed_days_by_day on seed_days (j, d)' },
    {
      what: 'usage_days',
      sql: `insert into usage_days (user_id, day, queries, tokens, last_grant)
        select s.user_id, cal.day, s.q, s.q * (s.p + s.c), s.p + s.c from seed_days s join seed_calendar cal on cal.j = s.j
        order by s.user_id, cal.day`,
    },
    {
      what: 'usage_months',
      sql: `insert into usage_months (user_id, month, queries, settled, processing_ms)
        select s.user_id, cal.month, sum(s.q), sum(s.q), sum(s.q * s.ms) from seed_days s join seed_calendar cal on cal.j = s.j
        group by s.user_id, cal.month order by s.user_id, cal.month`,
    },
    ...[...byMonth].map(([month, js]) => ({
      what: `ledger ${month}`,
      sql: `insert into usage_ledger (user_id, request_id, task, month, day, status, reserved_tokens, prompt_tokens, completion_tokens,
          processing_time_ms, created_at, settled_at, team_id, credential_kind, credential_id)
        select user_id, substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-' || substr(r, 7, 12),
          task, month, day, 'settled', p + c, p, c, ms, created, created + ms, null, 'web', session_id
        from (
          select s.user_id, s.session_id, s.task, s.p, s.c, s.ms, cal.month, cal.day, s.j, s.d, x.x,
            ${created} as created, ${hex12(created)} as h, ${randomHex} as r
          from seed_days s join seed_calendar cal on cal.j = s.j join seed_counter x on x.x <= s.q
          where s.j between ${js[0]} and ${js[js.length - 1]}
        ) as t
        order by j, d, x`,
    })),
  ];
}

export const DROP_TEMP: Statement[] = ['seed_days', 'seed_users', 'seed_names', 'seed_counter', 'seed_calendar'].map((table) => ({
  what: 'temp tables',
  sql: `drop table if exists ${table}`,
}));

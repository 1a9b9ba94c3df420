import type autocannon from 'autocannon';
import { PLANS } from '../../../contract/plans';
import { periodsAt } from '../../../server/domain/usageReport';
import { QUERY_CONNECTIONS, QUERY_USERS, GET_CONNECTIONS } from './options';
import { addHistory } from './seeding';
import { planUser, type Deployment } from './servers';

/**
 * What one target measures and how its runs are checked. A query target takes turns with a pool
 * of Team users and checks the counts after every run: each 2xx answer has exactly one ledger row,
 * the counters equal the ledger, no user is over a limit.
 */

export interface Target {
  name: string;
  /** One URL, or one per instance: autocannon gives its connections to them in turn. */
  url: string | string[];
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Requests the connections take turns with (instead of method, headers and body). */
  requests?: autocannon.Request[];
  /** Minimum ratio to the baseline; null for report-only targets and for the baseline itself. */
  minRatio: number | null;
  /** The count check after each run; answers what is wrong, or null. */
  verify?: (run: RunCounts) => Promise<string | null>;
  /** Made before each run (the query targets start their users' day afresh). */
  beforeRun?: () => Promise<void>;
}

/** What the clients of one run saw. */
export interface RunCounts {
  /** 2xx answers received. */
  ok: number;
  /** Requests sent, including those still in flight when the run ended. */
  sent: number;
  /** Answers received that were not 2xx. */
  notOk: number;
}

/** An authenticated GET of the app (users/me, the usage reads). */
export function getTarget(name: string, deployment: Deployment, route: string, token: string, minRatio: number | null): Target {
  return {
    name,
    url: `${deployment.urls[0]}/api/v1/${route}`,
    method: 'GET',
    headers: { authorization: `Bearer ${token}` },
    connections: GET_CONNECTIONS,
    minRatio,
  };
}

export const QUERY_BODY = JSON.stringify({
  task: 'analyze',
  prompt: 'Summarise each column',
  data: [
    ['Region', 'Revenue', 'Units'],
    ['North', 1200.5, 31],
    ['South', 980, 24],
    ['East', 1410.25, null],
    ['West', 760, 18],
  ],
});

const TEAM_DAILY_TOKENS = PLANS.find((plan) => plan.id === 'team')!.limits.daily_tokens;

/** The smallest UUIDv7 of the millisecond `at`: the server's request ids made from then on sort after it. */
function firstRequestIdAt(at: number): string {
  const time = at.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-8000-000000000000`;
}

/**
 * The query target of a deployment: 100 connections taking turns with a pool of Team users, each
 * with 13 months of history, and the count check after each run.
 */
export async function queryTarget(name: string, deployment: Deployment, minRatio: number | null): Promise<Target> {
  const users = [];
  // A few at a time: each registration hashes a password with argon2id.
  for (let i = 0; i < QUERY_USERS; i += 4) users.push(...(await Promise.all([0, 1, 2, 3].map(() => planUser(deployment, 'team')))));
  const ids = users.map((user) => user.userId);
  const { db } = deployment;
  await addHistory(db, deployment.engine, ids);
  const counters = async () =>
    Number((await db.selectFrom('usage_months').select((eb) => eb.fn.sum('queries').as('n')).where('user_id', 'in', ids).executeTakeFirstOrThrow()).n ?? 0);
  // The ledger has no index by user: the history is counted once, by a scan, and the rows of the
  // bench's queries by their request ids, which are time-ordered (UUIDv7) and keyed first.
  const history = Number((await db.selectFrom('usage_ledger').select((eb) => eb.fn.countAll().as('n')).where('user_id', 'in', ids).executeTakeFirstOrThrow()).n);
  if ((await counters()) !== history) throw new Error(`${name}: the seeded history's counters say ${await counters()} queries, its ledger ${history}`);
  const since = firstRequestIdAt(Date.now());
  const today = periodsAt(Date.now()).day;
  const ledgerRows = async () =>
    history +
    Number(
      (await db.selectFrom('usage_ledger').select((eb) => eb.fn.countAll().as('n')).where('request_id', '>=', since).where('user_id', 'in', ids).executeTakeFirstOrThrow())
        .n,
    );
  let counted = history;
  const headers = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
  return {
    name,
    url: deployment.urls.map((url) => `${url}/api/v1/query`),
    method: 'POST',
    // The preflight's request; the runs take turns with `requests`.
    headers: headers(users[0]!.token),
    body: QUERY_BODY,
    connections: QUERY_CONNECTIONS,
    requests: users.map((user) => ({
      method: 'POST',
      path: '/api/v1/query',
      headers: headers(user.token),
      body: QUERY_BODY,
    })),
    minRatio,
    // Every run starts its users on a fresh day (their usage_days rows from the bench's first day
    // on gone, as at midnight UTC): a run then cannot exhaust a daily budget however fast the
    // server is (a user's 200,000 Team tokens last about 1,100 queries, and a run spreads over
    // QUERY_USERS users), so every answer of a run is a real query and any other answer fails the bench.
    async beforeRun() {
      await db.deleteFrom('usage_days').where('user_id', 'in', ids).where('day', '>=', today).execute();
    },
    async verify({ ok, sent, notOk }) {
      // Queries the server was still answering when the clients stopped finish first.
      let rows = await ledgerRows();
      for (let before = -1; rows !== before; ) {
        before = rows;
        await new Promise((resolve) => setTimeout(resolve, 250));
        rows = await ledgerRows();
      }
      const added = rows - counted;
      counted = rows;
      const over = await db.selectFrom('usage_days').select('user_id').where('user_id', 'in', ids).where('tokens', '>', TEAM_DAILY_TOKENS).execute();
      const counter = await counters();
      if (counter !== rows) return `counters say ${counter} queries, the ledger ${rows} (are request ids still UUIDv7?)`;
      // Each answer has its row; the rest are requests cut off by the end of the run.
      if (added < ok || added > sent - notOk) return `${ok} answers (${sent - notOk} at most) but ${added} ledger rows`;
      if (over.length > 0) return `${over.length} users over the daily tokens`;
      return null;
    },
  };
}

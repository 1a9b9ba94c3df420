import type { Engine } from '../../../server/db/types';
import { GET_CONNECTIONS, INSTANCES, LOGIN_CONNECTIONS, SEED_LEDGER_ROWS, SEED_USERS, SEEDED, type Cleanup } from './options';
import { addHistory, engineName, formatBytes } from './seeding';
import { ACCOUNT, newPostgresDatabase, registerAccount, startApp, startProcesses, startSeededApp, type Deployment } from './servers';
import { getTarget, queryTarget, type Target } from './targets';

/**
 * Every target of a run by name, in the report's order, each made only when chosen (BENCH_ONLY):
 * making one may start an app, register users or seed a database, so what is not measured costs
 * nothing. A seeded target names its empty-database twin, which is chosen with it.
 */

export interface Spec {
  name: string;
  make: () => Promise<Target>;
  /** The empty database's target a seeded one is set beside. */
  emptyTwin?: string;
  /** The race of a query target's deployment, named for the report. */
  race?: { name: string; deployment: () => Promise<Deployment> };
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** The deployments, each started at its first use, and each one's account for the GET targets. */
export class Deployments {
  /** One line per seeded database: its size, how long the seeding took, its bytes on disk. */
  readonly seeding: string[] = [];
  readonly app: Record<Engine, () => Promise<Deployment>>;
  readonly seeded: Record<Engine, () => Promise<Deployment>>;
  readonly processes: () => Promise<Deployment>;
  /** The first of the processes alone, for comparison. */
  readonly firstProcess: () => Promise<Deployment>;
  private readonly tokens = new Map<Deployment, Promise<string>>();

  constructor(cleanup: Cleanup, tmpRoot: string) {
    this.app = {
      sqlite: once(() => startApp(cleanup, tmpRoot, 'sqlite')),
      postgres: once(async () => startApp(cleanup, tmpRoot, 'postgres', await newPostgresDatabase(cleanup))),
    };
    const seeded = (engine: Engine) =>
      once(async () => {
        const { deployment, seeded: took } = await startSeededApp(cleanup, tmpRoot, engine, Date.now());
        const size = `${SEED_USERS.toLocaleString('en')} users, ${SEED_LEDGER_ROWS.toLocaleString('en')} ledger rows over 13 months`;
        this.seeding.push(`${engineName(engine)}: ${size}, seeded in ${took.seconds.toFixed(1)} s, ${formatBytes(took.bytes)} on disk`);
        return deployment;
      });
    this.seeded = { sqlite: seeded('sqlite'), postgres: seeded('postgres') };
    this.processes = once(() => startProcesses(cleanup, tmpRoot, INSTANCES));
    this.firstProcess = once(async () => {
      const all = await this.processes();
      return { ...all, urls: all.urls.slice(0, 1) };
    });
  }

  /** The bench account of a deployment (registered at the first call), with history like every bench user's. */
  token(deployment: Deployment): Promise<string> {
    let token = this.tokens.get(deployment);
    if (!token) {
      token = registerAccount(deployment.urls[0]!).then(async ({ token: made, userId }) => {
        await addHistory(deployment.db, deployment.engine, [userId]);
        return made;
      });
      this.tokens.set(deployment, token);
    }
    return token;
  }
}

function querySpec(name: string, deployment: () => Promise<Deployment>, minRatio: number | null, race: string | null): Spec {
  return { name, make: async () => queryTarget(name, await deployment(), minRatio), ...(race ? { race: { name: race, deployment } } : {}) };
}

/** users/me, usage, usage/daily and query of one engine, on its empty or its seeded database. */
function engineSpecs(deployments: Deployments, engine: Engine, seeded: boolean): Spec[] {
  const deployment = seeded ? deployments.seeded[engine] : deployments.app[engine];
  const label = `${seeded ? 'seeded ' : ''}${engineName(engine)}`;
  // The seeded targets are judged against their twins, not the baseline.
  const ratio = (empty: number | null) => (seeded ? null : empty);
  const twin = (kind: string) => (seeded ? { emptyTwin: `${kind} (${engineName(engine)})` } : {});
  const reads: Array<[kind: string, route: string, minRatio: number | null]> = [
    ['users/me', 'users/me', engine === 'sqlite' ? 0.5 : 0.25],
    ['usage', 'query/usage', null],
    ['usage/daily', 'query/usage/daily', null],
  ];
  return [
    ...reads.map(([kind, route, minRatio]): Spec => {
      const name = `${kind} (${label})`;
      const make = async () => {
        const made = await deployment();
        return getTarget(name, made, route, await deployments.token(made), ratio(minRatio));
      };
      return { name, make, ...twin(kind) };
    }),
    { ...querySpec(`query (${label})`, deployment, ratio(engine === 'sqlite' ? 0.3 : null), label), ...twin('query') },
  ];
}

/** Every target the knobs ask for; the baseline first. */
export function allSpecs(deployments: Deployments, baselineUrl: string): Spec[] {
  const simple = (name: string, target: () => Promise<Omit<Target, 'name'>>): Spec => ({ name, make: async () => ({ name, ...(await target()) }) });
  const [sqlite, postgres] = [engineSpecs(deployments, 'sqlite', false), engineSpecs(deployments, 'postgres', false)];
  const many = `${INSTANCES} PostgreSQL processes`;
  const seeded = SEEDED ? [...engineSpecs(deployments, 'sqlite', true), ...engineSpecs(deployments, 'postgres', true)] : [];
  const specs: Spec[] = [
    simple('baseline GET /hello', async () => ({ url: `${baselineUrl}/hello`, method: 'GET', connections: GET_CONNECTIONS, minRatio: null })),
    simple('health (SQLite)', async () => ({ url: `${(await deployments.app.sqlite()).urls[0]}/api/v1/health`, method: 'GET', connections: GET_CONNECTIONS, minRatio: 0.85 })),
    // users/me, usage and usage/daily of both engines, then login, then the queries.
    ...[0, 1, 2].flatMap((i) => [sqlite[i]!, postgres[i]!]),
    simple('login (SQLite, argon2id)', async () => {
      const app = await deployments.app.sqlite();
      // The account it signs in to.
      await deployments.token(app);
      const body = JSON.stringify({ email: ACCOUNT.email, password: ACCOUNT.password });
      return { url: `${app.urls[0]}/api/v1/auth/login/email`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: LOGIN_CONNECTIONS, minRatio: null };
    }),
    sqlite[3]!,
    postgres[3]!,
    ...(INSTANCES > 1
      ? [querySpec('query (1 PostgreSQL process)', deployments.firstProcess, null, null), querySpec(`query (${many})`, deployments.processes, null, many)]
      : []),
  ];
  // Each seeded target right after its twin: measured one after the other in every round, the two
  // meet the same moment of the machine (and the same aftermath of the target before them).
  return specs.flatMap((spec) => [spec, ...seeded.filter((s) => s.emptyTwin === spec.name)]);
}

/** The baseline, the specs whose names contain one of `only` (all when it is empty), and their twins. */
export function choose(specs: Spec[], only: string[]): Spec[] {
  const matched = specs.filter((spec, index) => index === 0 || only.length === 0 || only.some((part) => spec.name.includes(part)));
  if (matched.length === 1) throw new Error(`BENCH_ONLY=${only.join(',')} matches no target`);
  const twins = new Set(matched.map((spec) => spec.emptyTwin));
  return specs.filter((spec) => matched.includes(spec) || twins.has(spec.name));
}

import path from 'node:path';
import { chromium } from 'playwright-core';
import { TASKS } from '../../contract/functions';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import type { TokenPair } from '../../machines/shared/tokenStorage';
import { apiClient, storedTokens } from '../helpers/browserPaths';
import { join, teamOwner, type Account } from '../helpers/teams';
import { MailCatcher, post, register, TestClock, type TestContext } from '../helpers/testApp';

/**
 * The account `npm run bench:web` measures the signed-in pages as: the owner of a Team with five
 * members, who all made queries every day of the last 30 (what /usage shows by default), so the
 * dashboard, /usage and /team have a month of figures to show. Made through the API of the real
 * app, built in this process on the folder the bench's server then opens, with a clock moved from
 * 29 days ago to now: every table (ledger, days, months, the team's per-member months) holds what
 * the server itself writes, dated as if the month had happened.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MEMBERS = ['Grace Hopper', 'Katherine Johnson', 'Dorothy Vaughan', 'Mary Jackson', 'Hedy Lamarr'];

export interface BenchOwner {
  email: string;
  password: string;
}

/** Queries a person makes on a day: 1 to 6, the same on every run of the bench. */
const queriesOn = (day: number, person: number) => 1 + ((day * 7 + person * 3) % 6);

export async function seedTeamWithAMonthOfUsage(dataDir: string): Promise<BenchOwner> {
  const now = Date.now();
  const clock = new TestClock(now - 29 * DAY - 9 * HOUR);
  const mail = new MailCatcher();
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir, WEB_DIR: path.join(dataDir, 'no-web') });
  const app = await buildApp({ config, clock, mailer: mail });
  mail.settle = () => app.mailer.drain();
  const ctx: TestContext = { app, config, dataDir, clock, mail, logs: () => '' };
  try {
    const owner = await teamOwner(ctx, { full_name: 'Ada Lovelace' });
    const people: Account[] = [owner];
    for (const full_name of MEMBERS) {
      const member = await register(app, { full_name });
      await join(ctx, owner, member);
      people.push(member);
    }
    // Each query at its own time of the day's working hours, in time order, the last ones just before now.
    const queries: { at: number; person: number; task: string }[] = [];
    for (let day = 0; day < 30; day++) {
      const dayEnd = now - (29 - day) * DAY - 60_000;
      for (const [person] of people.entries()) {
        const count = queriesOn(day, person);
        for (let i = 0; i < count; i++) queries.push({ at: dayEnd - 8 * HOUR + ((i + 1) * 8 * HOUR) / (count + 1) - person * 60_000, person, task: TASKS[(day + person + i) % TASKS.length]! });
      }
    }
    queries.sort((a, b) => a.at - b.at);
    const refreshedAt = people.map(() => clock.now());
    for (const { at, person, task } of queries) {
      clock.time = Math.max(clock.time, at);
      const who = people[person]!;
      // An access token lasts 15 minutes; the session goes on through its refresh token, as the add-on's does.
      if (clock.now() - refreshedAt[person]! > 10 * 60_000) {
        const res = await post(app, '/api/v1/auth/refresh', { refresh_token: who.refresh_token });
        if (res.statusCode !== 200) throw new Error(`refresh answered ${res.statusCode}: ${res.body}`);
        Object.assign(who, res.json() as TokenPair);
        refreshedAt[person] = clock.now();
      }
      const res = await post(app, '/api/v1/query', { task, prompt: `Sum of column B by region (${task})`, data: [['Region', 'Sales'], ['North', 3], ['South', 5]] }, { authorization: `Bearer ${who.access_token}` });
      if (res.statusCode !== 200) throw new Error(`POST /query answered ${res.statusCode}: ${res.body}`);
    }
    return { email: owner.account.email, password: owner.account.password };
  } finally {
    await app.close();
  }
}

/**
 * A new session of the owner on the bench's server: each run signs in afresh (refresh tokens
 * rotate, so a page that refreshed would leave the next run's tokens spent), and signs out after.
 */
export async function signedIn(baseUrl: string, owner: BenchOwner): Promise<{ tokens: TokenPair; signOut: () => Promise<void> }> {
  const api = apiClient(baseUrl);
  const tokens = await api.login(owner.email, owner.password);
  return { tokens, signOut: () => api.logout(tokens.access_token).then(() => undefined) };
}

/**
 * Writes the session's tokens into the local storage of `origin` in the Chromium at `port` (the
 * one Lighthouse drives), from a page of the origin that runs no script of the app; Lighthouse's
 * own reset before a run clears the cache and other storage, not local storage.
 */
export async function storeSession(port: number, origin: string, tokens: TokenPair | null): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(`${origin}/api/v1/health`);
    await page.evaluate((entries) => {
      localStorage.clear();
      for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, value);
    }, tokens ? storedTokens(tokens) : {});
    await page.close();
  } finally {
    await browser.close();
  }
}

import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { EventObject } from 'xstate';
import { USER_CODE_ALPHABET, USER_CODE_LENGTH, displayUserCode } from '../../contract/userCode';
import type { LinkEvent } from '../../machines/link/link.machine';
import { hashToken } from '../../server/domain/tokens';
import * as messages from '../../src/content/messages';
import type { DeviceGrant } from '../../machines/shared/api';
import { apiClient, cutOff, HeldCalls, openTab, storedTokens, uniqueAccount, type CallPattern, useServerAndPathsBrowser } from '../helpers/browserPaths';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { labelled, type Sight } from '../helpers/sights';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import { CODE, grant, linkCoverage, linkPaths, linkViews, type LinkSnapshot } from '../model/link.paths';

/**
 * The /link chart's generated paths (tests/model/link.paths.ts) replayed in Chromium on the real
 * page against the real server, one test per path. Each path has its own account and its own
 * address (the server sits behind one trusted proxy, so `X-Forwarded-For` names it), so the
 * guessing limits of one path do not reach another. The codes are real: the test asks for them
 * as the add-on does (from the model's address and client), and types them where the model types
 * its example code. Every answer is the real server's, the code first put in the state the path
 * needs: approved by someone else (already used), past its expiry (the only change made in the
 * database: 15 minutes cannot pass in a test), never issued (not found), or the account's ten
 * wrong codes used up (rate limited). Only the lost connection is made up.
 */

jest.setTimeout(60_000);

const live = useServerAndPathsBrowser({ TRUST_PROXY: 'true' });
const t = messages.link;

const CALLS = {
  lookUp: { method: 'POST', path: '/oauth/device/lookup' },
  approve: { method: 'POST', path: '/oauth/device/approve' },
  deny: { method: 'POST', path: '/oauth/device/deny' },
} satisfies Record<string, CallPattern>;
type Call = keyof typeof CALLS;

const password = 'Analytical-Engine-1843';
/** Someone else, who approves a code before the path's person gets to it. */
let other = '';
let addresses = 0;

beforeAll(async () => {
  other = (await apiClient(live.server.baseUrl).register(uniqueAccount('Grace Hopper', password))).access_token;
});

function call(pathname: string, init: { body: string; type: string; headers?: Record<string, string> }) {
  return fetch(`${live.server.baseUrl}/api/v1${pathname}`, { method: 'POST', body: init.body, headers: { 'content-type': init.type, ...init.headers } });
}

/** The add-on asks for a code pair from the model's address and with its user agent; answers the user code. */
async function issueCode(): Promise<string> {
  const res = await call('/oauth/device_authorization', {
    body: new URLSearchParams({ client_id: grant.client_id }).toString(),
    type: 'application/x-www-form-urlencoded',
    headers: { 'user-agent': grant.user_agent!, 'x-forwarded-for': grant.ip },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { user_code: string }).user_code.replace('-', '');
}

/** A well-formed code nobody asked for (one in 2.5e10 that it is live). */
function unknownCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[Math.floor(Math.random() * USER_CODE_ALPHABET.length)];
  return code;
}

/** A signed-in person's approval-page call, made by the test. */
const decide = (action: 'lookup' | 'approve', code: string, token: string, ip?: string) =>
  call(`/oauth/device/${action}`, {
    body: JSON.stringify({ user_code: code }),
    type: 'application/json',
    headers: { authorization: `Bearer ${token}`, ...(ip ? { 'x-forwarded-for': ip } : {}) },
  });

/** Time passes for one code: its expiry is moved into the past. */
function expire(code: string): void {
  const db = new SQLite(path.join(live.server.dataDir, 'sheetmind.db'));
  try {
    expect(db.prepare('update device_grants set expires_at = ? where user_code_hash = ?').run(Date.now() - 1000, hashToken(code)).changes).toBe(1);
  } finally {
    db.close();
  }
}

/** The model's example code as its person types it. */
const TYPED = CODE.replace('-', '').toLowerCase();
const outcomeOf = (event: EventObject) => (event as ActorOutcome).error as { status: number; code: string | null } | undefined;
const isLookUp = (event: EventObject) => event.type.endsWith('.actor.lookUp');

describeChartPaths('link chart, generated paths, in Chromium against the real server', 'link', { coverage: linkCoverage, paths: linkPaths }, async ({ arrival, path }) => {
  const { baseUrl } = live.server;
  const signedIn = arrival !== 'signedOut';
  addresses += 1;
  const ip = `198.51.100.${addresses}`;
  const tokens = signedIn ? await apiClient(baseUrl).register(uniqueAccount('Ada Lovelace', password)) : null;
  const { page, close } = await openTab(live.browser, tokens ? storedTokens(tokens) : {}, { extraHTTPHeaders: { 'x-forwarded-for': ip } });
  try {
    const held = await HeldCalls.on(page, CALLS);

    /** The code the page holds: a real one (or one never issued) where the model has its example. */
    let code = '';
    /** A code for the next look-up the path makes, from `index` on: never issued when it is to be not found. */
    const codeFor = async (index: number) => {
      const next = path.steps.slice(index).find((step) => isLookUp(step.event));
      return next && outcomeOf(next.event)?.status === 404 ? unknownCode() : issueCode();
    };
    // The model's strings, as they are in this replay.
    const real = (value: string) => (value === CODE ? displayUserCode(code) : value === TYPED ? code.toLowerCase() : value);
    const inReplay = (sight: Sight): Sight => {
      if ('text' in sight && typeof sight.text === 'string') return { ...sight, text: real(sight.text) };
      if ('label' in sight && typeof sight.label === 'string') return { ...sight, label: labelled(sight.label), ...(sight.value !== undefined ? { value: real(sight.value) } : {}) };
      return sight;
    };
    const views = Object.fromEntries(Object.entries(linkViews).map(([key, view]) => [key, (state: LinkSnapshot) => view(state).map(inReplay)]));

    /** Puts the code in the state the outcome needs, then passes the page's call to the server and checks the answer was that outcome. */
    const settle = (name: string) => async ({ event }: { event: EventObject }) => {
      const error = outcomeOf(event);
      if (error?.status === 0) return cutOff(await held.take(name as Call));
      if (error?.code === 'user_code_expired') expire(code);
      if (error?.code === 'user_code_used') expect((await decide('approve', code, other)).status).toBe(200);
      if (error?.status === 429) {
        // Wrong codes from this account until the server says no more.
        let status = 0;
        for (let i = 0; status !== 429 && i <= 10; i++) status = (await decide('lookup', unknownCode(), tokens!.access_token, ip)).status;
        expect(status).toBe(429);
      }
      const route = await held.take(name as Call);
      const answer = await route.fetch();
      await route.fulfill({ response: answer });
      expect(answer.status()).toBe(error?.status ?? 200);
      if (error) expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(error.code);
      else expect(((await answer.json()) as DeviceGrant).user_code).toBe(displayUserCode(code));
    };

    if (arrival === 'withCode' || arrival === 'signedOut') code = await codeFor(1);
    await page.goto(arrival === 'signedIn' ? `${baseUrl}/link` : `${baseUrl}/link?code=${displayUserCode(code)}`);
    await path.test({
      states: inBrowser(page, views),
      events: {
        ...outcomeHandlers(Object.keys(CALLS) as Call[], settle),
        'code.change': async (step) => {
          const typed = (step.event as Extract<LinkEvent, { type: 'code.change' }>).code;
          if (typed === TYPED) code = await codeFor(path.steps.indexOf(step as never));
          await page.getByLabel(labelled(t.codeLabel)).fill(real(typed));
        },
        'code.submit': () => page.getByRole('button', { name: t.continue, exact: true }).click(),
        'code.reenter': () => page.getByRole('button', { name: t.otherCode, exact: true }).click(),
        'link.approve': () => page.getByRole('button', { name: t.approve, exact: true }).click(),
        'link.deny': () => page.getByRole('button', { name: t.deny, exact: true }).click(),
      },
    });
  } finally {
    await close();
  }
});

it('signed out: signs in from the page and comes back to the code, then approves it', async () => {
  const { baseUrl } = live.server;
  const account = uniqueAccount('Ada Lovelace', password);
  await apiClient(baseUrl).register(account);
  const code = await issueCode();
  const { page, close } = await openTab(live.browser);
  try {
    await page.goto(`${baseUrl}/link?code=${displayUserCode(code)}`);
    await seesInBrowser(page, linkViews.signedOut());
    await page.getByRole('link', { name: t.signIn, exact: true }).click();
    await page.getByLabel(labelled(messages.login.email)).fill(account.email);
    await page.getByLabel(labelled(messages.login.password)).fill(password);
    await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
    await page.waitForURL(`${baseUrl}/link?code=${displayUserCode(code)}`);
    await seesInBrowser(page, [{ role: 'heading', level: 2, name: t.confirmTitle }, { text: displayUserCode(code) }, { text: grant.ip }]);
    await page.getByRole('button', { name: t.approve, exact: true }).click();
    await seesInBrowser(page, linkViews.approved());
  } finally {
    await close();
  }
});

import fs from 'node:fs';
import * as messages from '../../src/content/messages';
import { presetRange, utcToday } from '../../machines/usage/usage.range';
import { useServerAndBrowser, watchPage } from '../helpers/browser';
import { apiClient, inviteInto, openContext, signUp, storedTokens, type LiveAccount } from '../helpers/browserPaths';

/**
 * /usage in Chromium against the real server, as the three kinds of account see it
 * (decisions.md, "Professional's promises"): a Free account gets the Professional offer, and the API
 * itself refuses it the figures; a Professional account gets its figures, chart, tables and the CSV
 * of its queries; a member of a team has what the Team plan has.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser();
const t = messages.usage;
const today = utcToday();

let api: ReturnType<typeof apiClient>;
let free: LiveAccount;
let professional: LiveAccount;
let member: LiveAccount;

const ask = (account: LiveAccount, task: string) => api.call('POST', '/query', { task, prompt: 'Sum of column B', data: [['a', 'b'], [1, 2]] }, account.tokens.access_token);

beforeAll(async () => {
  api = apiClient(live.server.baseUrl);
  free = await signUp(api, 'Ada Lovelace');
  professional = await signUp(api, 'Grace Hopper');
  await api.subscribe(professional.tokens.access_token, 'professional');
  const owner = await signUp(api, 'Katherine Johnson');
  await api.subscribe(owner.tokens.access_token, 'team');
  member = await signUp(api, 'Dorothy Vaughan');
  await inviteInto(api, live.server.dataDir, owner.tokens.access_token, member);
  for (const account of [professional, member]) {
    expect((await ask(account, 'formula')).status).toBe(200);
    expect((await ask(account, 'analyze')).status).toBe(200);
  }
});

/**
 * A browser context of its own for each account, signed in, at /usage; `analytics` is the page's
 * first answer to its analytics call (asked from the page's first script, before the app loads).
 */
async function openUsage(account: LiveAccount) {
  const { context, page } = await openContext(live.browser, storedTokens(account.tokens));
  const watch = await watchPage(page);
  const analytics = page.waitForResponse((response) => response.url().includes('/api/v1/usage/analytics'));
  // A test that does not read it: the context's closing ends the wait.
  analytics.catch(() => undefined);
  await page.goto(`${live.server.baseUrl}/usage`);
  return { page, watch, analytics, close: () => context.close() };
}

describe('/usage in Chromium', () => {
  it('offers Professional to a Free account, whose analytics and CSV the API refuses', async () => {
    const { page, analytics, close } = await openUsage(free);
    try {
      const refused = await analytics;
      expect(refused.status()).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: 'plan_required', required_plan: 'professional' } });
      await page.getByRole('heading', { name: t.upgradeHeading }).waitFor();
      const upgrade = page.getByRole('link', { name: t.upgradeAction('Professional') });
      expect(await upgrade.getAttribute('href')).toBe('/subscription');
      expect(await page.getByRole('button', { name: t.downloadCsv }).count()).toBe(0);
      const range = presetRange('last30', today);
      const csv = await api.call('GET', `/usage/export.csv?from=${range.from}&to=${range.to}`, undefined, free.tokens.access_token);
      expect(csv.status).toBe(403);
      // The account export is every plan's.
      await page.getByRole('button', { name: t.exportAction }).waitFor();
      await upgrade.click();
      await page.waitForURL(/\/subscription$/);
    } finally {
      await close();
    }
  });

  it('shows a Professional account its figures, chart and tables, and downloads the CSV of the range', async () => {
    const { page, close, watch } = await openUsage(professional);
    try {
      await page.getByRole('region', { name: t.totalsHeading }).waitFor();
      const chart = page.getByRole('img', { name: new RegExp(`^${t.chartTitle('\0', '\0').split('\0')[0]}`) });
      await chart.waitFor();
      // Today's bar, focused from the keyboard, names its two queries; so does its box on screen.
      const todayBar = chart.getByRole('img').last();
      await todayBar.focus();
      const name = (await todayBar.getAttribute('aria-label'))!;
      expect(name).toMatch(/: 2 queries, \d+ tokens, average [\d.,]+ ms$/);
      await page.getByText(name, { exact: true }).filter({ visible: true }).waitFor();
      await page.keyboard.press('ArrowLeft');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(/: 0 queries, 0 tokens$/);

      const byTask = page.getByRole('table', { name: t.byTaskHeading });
      await byTask.getByText(t.tasks.formula!).waitFor();
      await byTask.getByText(t.tasks.analyze!).waitFor();
      await page.getByRole('table', { name: t.byCredentialHeading }).getByText('Web app', { exact: true }).waitFor();

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: t.downloadCsv }).click();
      const file = await download;
      const range = presetRange('last30', today);
      expect(file.suggestedFilename()).toBe(`usage-${range.from}-to-${range.to}.csv`);
      const csv = fs.readFileSync((await file.path())!, 'utf8');
      const [header, ...rows] = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
      expect(csv.startsWith('\uFEFF')).toBe(true);
      expect(header).toBe('at,task,credential_kind,credential_name,prompt_tokens,completion_tokens,processing_ms');
      expect(rows.map((row) => row.split(',').slice(1, 4))).toEqual([
        ['formula', 'web', 'Web app'],
        ['analyze', 'web', 'Web app'],
      ]);
      expect(watch.cspViolations).toEqual([]);
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('gives a team member what the Team plan has, and says the range has no usage when it has none', async () => {
    const { page, close } = await openUsage(member);
    try {
      await page.getByRole('table', { name: t.byTaskHeading }).getByText(t.tasks.formula!).waitFor();
      await page.getByRole('button', { name: t.presets.lastMonth }).click();
      await page.getByRole('region', { name: t.emptyTitle }).waitFor();
      expect(await page.getByRole('button', { name: t.downloadCsv }).count()).toBe(0);
    } finally {
      await close();
    }
  });
});

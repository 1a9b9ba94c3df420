import type { BrowserContext, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakeAi';
import { useServerAndBrowser, watchPage } from '../helpers/browser';
import { apiClient, inviteInto, openContext, signUp, storedTokens, type LiveAccount } from '../helpers/browserPaths';

/**
 * /functions in Chromium against the real server (issue #39), its answers from a local fake
 * OpenAI-compatible model that streams and holds the end of its answer until the test lets it go:
 * a Free account is offered the upgrade, a Professional one makes, changes, tries and deletes a
 * function, and in a team the admin shares one that a member runs but cannot change.
 */

jest.setTimeout(180_000);

const t = messages.functions;
const e = t.editor;
const env: Record<string, string> = {};
let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  Object.assign(env, { LLM_BASE_URL: fake.baseUrl, LLM_MODEL: 'fake-model', LLM_TIMEOUT_MS: '20000' });
});
afterAll(() => fake?.close());
const live = useServerAndBrowser(env);

describe('/functions in Chromium against the real server', () => {
  const contexts: BrowserContext[] = [];
  afterAll(() => Promise.all(contexts.map((context) => context.close())));
  const api = () => apiClient(live.server.baseUrl);
  async function open(who: LiveAccount): Promise<Page> {
    const { context, page } = await openContext(live.browser, storedTokens(who.tokens));
    contexts.push(context);
    await page.goto(`${live.server.baseUrl}/functions`);
    return page;
  }

  it('offers a Free account what Professional adds, with the way to upgrade, and nothing broken', async () => {
    const free = await signUp(api(), 'Frida Free');
    const page = await open(free);
    const watch = await watchPage(page);
    await page.getByRole('heading', { name: t.upgrade.title }).waitFor();
    await page.getByText(t.upgrade.points[0]).waitFor();
    expect(await page.getByRole('button', { name: t.newFunction }).count()).toBe(0);
    await page.getByRole('link', { name: t.upgrade.button('Professional') }).click();
    await page.waitForURL(/\/subscription$/);
    // The one refusal the page asks for (403 plan_required) is the only thing the console reports.
    expect(watch.consoleErrors.filter((line) => !line.includes('status of 403'))).toEqual([]);
  });

  it('lets a Professional account make, change, try (the answer shows as it is written) and delete a function', async () => {
    const pro = await signUp(api(), 'Paula Pro');
    await api().subscribe(pro.tokens.access_token, 'professional');
    const page = await open(pro);
    await page.getByText(t.empty).waitFor();

    // Made from the top bar's page: a bad name and a prompt without {{input}} are refused on their fields first.
    await page.getByRole('button', { name: t.newFunction }).click();
    const editor = page.getByRole('region', { name: e.newTitle });
    await editor.getByLabel(e.name).fill('total by region');
    await editor.getByLabel(e.prompt).fill('Total by region');
    await editor.getByRole('button', { name: e.save }).click();
    await editor.getByText(t.validation.name).waitFor();
    await editor.getByText(t.validation.promptInput).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    await editor.getByLabel(e.name).fill('TOTAL_BY_REGION');
    await editor.getByLabel(e.prompt).fill('Total {{input}} by region');
    await editor.getByLabel(e.task).selectOption('ask');
    await editor.getByRole('button', { name: e.save }).click();
    const item = page.getByRole('listitem', { name: 'TOTAL_BY_REGION' });
    await item.getByText(t.cellCall('TOTAL_BY_REGION')).waitFor();
    await item.getByText(t.scopePersonal, { exact: true }).waitFor();

    // A second function with the same name: the server's 409 on the name field.
    await page.getByRole('button', { name: t.newFunction }).click();
    await editor.getByLabel(e.name).fill('TOTAL_BY_REGION');
    await editor.getByLabel(e.prompt).fill('Sum {{input}}');
    await editor.getByRole('button', { name: e.save }).click();
    await editor.getByText(t.errors.function_exists).waitFor();
    await editor.getByRole('button', { name: e.cancel }).click();

    // Changed.
    await item.getByRole('button', { name: `${t.edit}: TOTAL_BY_REGION` }).click();
    const edit = page.getByRole('region', { name: e.editTitle('TOTAL_BY_REGION') });
    await edit.getByLabel(e.description).fill('Revenue per region');
    await edit.getByRole('button', { name: e.save }).click();
    await item.getByText('Revenue per region').waitFor();

    // Tried: the first words show while the model is still writing, then the whole answer.
    fake.script({ kind: 'stream', parts: ['North leads ', 'with 26,300 '], hold: true, usage: { prompt_tokens: 60, completion_tokens: 9 } });
    await item.getByRole('button', { name: `${t.run}: TOTAL_BY_REGION` }).click();
    const trying = page.getByRole('region', { name: t.tryTitle });
    await trying.getByRole('status').filter({ hasText: 'North leads with 26,300' }).waitFor();
    expect(await trying.getByRole('button', { name: t.running }).isVisible()).toBe(true);
    expect(await trying.getByRole('status').getAttribute('aria-busy')).toBe('true');
    fake.release();
    await trying.getByText(messages.guide.usageNow(1, 69)).waitFor();
    expect(await trying.getByRole('status').getAttribute('aria-busy')).toBeNull();
    expect(fake.requests.at(-1)!.body.messages.map((m) => m.content).join('\n')).toContain('Total the cells given as data by region');

    // Deleted, after saying yes.
    await item.getByRole('button', { name: `${t.delete}: TOTAL_BY_REGION` }).click();
    await item.getByRole('button', { name: t.cancel }).click();
    await item.getByRole('button', { name: `${t.delete}: TOTAL_BY_REGION` }).click();
    await item.getByRole('button', { name: t.confirmDelete }).click();
    await page.getByText(t.empty).waitFor();
    expect((await api().call<{ functions: unknown[] }>('GET', '/functions', undefined, pro.tokens.access_token)).body.functions).toEqual([]);
  });

  it('lets a team admin share a function that a member sees read-only and runs', async () => {
    const owner = await signUp(api(), 'Olga Owner');
    const member = await signUp(api(), 'Max Member');
    await api().subscribe(owner.tokens.access_token, 'team');
    await inviteInto(api(), live.server.dataDir, owner.tokens.access_token, member);

    const admin = await open(owner);
    await admin.getByRole('button', { name: t.newFunction }).click();
    const editor = admin.getByRole('region', { name: e.newTitle });
    await editor.getByLabel(e.name).fill('TEAM_TOTALS');
    await editor.getByLabel(e.prompt).fill('Totals of {{input}} for the team');
    await editor.getByLabel(e.scope).selectOption({ label: e.scopeTeam });
    await editor.getByRole('button', { name: e.save }).click();
    const shared = admin.getByRole('listitem', { name: 'TEAM_TOTALS' });
    await shared.getByText(t.scopeTeam, { exact: true }).waitFor();
    await shared.getByRole('button', { name: `${t.edit}: TEAM_TOTALS` }).waitFor();

    const page = await open(member);
    const item = page.getByRole('listitem', { name: 'TEAM_TOTALS' });
    await item.getByText(t.teamReadOnly).waitFor();
    expect(await item.getByRole('button', { name: `${t.edit}: TEAM_TOTALS` }).count()).toBe(0);
    expect(await item.getByRole('button', { name: `${t.delete}: TEAM_TOTALS` }).count()).toBe(0);
    // A member makes personal functions only: no choice of scope.
    await page.getByRole('button', { name: t.newFunction }).click();
    expect(await page.getByLabel(e.scope).count()).toBe(0);
    await page.getByRole('button', { name: e.cancel }).click();

    fake.script({ kind: 'answer', content: 'The team sold 81,600.', usage: { prompt_tokens: 50, completion_tokens: 6 } });
    await item.getByRole('button', { name: `${t.run}: TEAM_TOTALS` }).click();
    await page.getByRole('region', { name: t.tryTitle }).getByText('The team sold 81,600.').waitFor();
  });
});

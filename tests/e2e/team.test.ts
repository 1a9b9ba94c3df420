import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { seriousViolations, useServerAndBrowser, watchPage } from '../helpers/browser';
import { apiClient, invitationLinksIn, makeTeam, newInvitationLink, newVerificationLink, signUp, storedTokens } from '../helpers/browserPaths';

jest.setTimeout(180_000);

const live = useServerAndBrowser();
const t = messages.team;

async function api(method: string, pathname: string, body?: unknown, token?: string) {
  const res = await fetch(`${live.server.baseUrl}/api/v1${pathname}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

const stamp = `${Date.now()}`;
const person = (name: string, full_name: string) => ({
  full_name,
  username: `${name}${stamp}`.slice(0, 30),
  email: `${name}${stamp}@example.com`,
  password: `Analytical-${name}-${stamp}`,
});

const invitationLink = (to: string) => newInvitationLink(live.server.dataDir, to);

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.getByLabel(messages.login.email).fill(who.email);
  await page.getByLabel(messages.login.password).fill(who.password);
  await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
}

describe('the Team story in Chromium against the real server', () => {
  const contexts: BrowserContext[] = [];
  afterAll(() => Promise.all(contexts.map((context) => context.close())));
  const newPage = async () => {
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    return context.newPage();
  };

  it('upgrades, invites two people (one registers from the mail, one signs in), caps, downloads the CSV, removes, and logs it all', async () => {
    const owner = person('owner', 'Ada Lovelace');
    const newcomer = person('newcomer', 'Łukasz Ś, "Luke"');
    const known = person('known', 'Grace Hopper');
    // Both verify their address from its mail (inviting and accepting need it); the newcomer does below.
    await apiClient(live.server.baseUrl).register(owner);
    const knownSession = await apiClient(live.server.baseUrl).register(known);

    // The owner signs in and buys Team through the test checkout.
    const page = await newPage();
    const watch = await watchPage(page);
    await page.goto(`${live.server.baseUrl}/team`);
    await signIn(page, owner);
    await page.getByRole('heading', { name: t.offerHeading }).waitFor();
    await page.getByRole('link', { name: t.offerAction }).click();
    await page.waitForURL(/\/subscription$/);
    const popup = page.context().waitForEvent('page');
    await page.getByRole('button', { name: messages.subscription.upgradeTo('Team') }).click();
    const checkout = await popup;
    await checkout.getByLabel('Card number').fill('4242 4242 4242 4242');
    await checkout.getByLabel('Expiry (MM/YY)').fill('12/34');
    await checkout.getByLabel('CVC').fill('123');
    await checkout.getByRole('button', { name: 'Pay $49' }).click();
    await checkout.waitForURL(/\/subscription\?checkout=success$/);
    await checkout.close();

    await page.goto(`${live.server.baseUrl}/team`);
    await page.getByRole('heading', { name: 'Ada Lovelace’s team', level: 1 }).waitFor();
    await page.getByText(t.aloneTitle).waitFor();

    // Two invitations from the form; a bad address is refused in words first.
    const email = page.getByLabel(t.inviteEmail);
    await email.fill('not an address');
    await page.getByRole('button', { name: t.inviteSubmit }).click();
    await page.getByText(t.emailInvalid).waitFor();
    await email.fill(newcomer.email);
    await page.getByRole('button', { name: t.inviteSubmit }).click();
    await page.getByText(t.inviteSent(newcomer.email)).waitFor();
    await page.getByLabel(t.inviteEmail).fill(known.email);
    await page.getByLabel(t.inviteRole).selectOption('member');
    await page.getByRole('button', { name: t.inviteSubmit }).click();
    await page.getByText(t.inviteSent(known.email)).waitFor();
    await page.getByRole('button', { name: `${t.revoke}: ${known.email}` }).waitFor();

    // The newcomer registers from the mail's link and comes back to accept.
    const newcomerPage = await newPage();
    await newcomerPage.goto(await invitationLink(newcomer.email));
    await newcomerPage.getByRole('heading', { name: messages.invitation.heading('Ada Lovelace’s team') }).waitFor();
    await newcomerPage.getByRole('link', { name: messages.invitation.register }).click();
    await newcomerPage.getByLabel(messages.register.fullName).fill(newcomer.full_name);
    await newcomerPage.getByLabel(messages.register.username).fill(newcomer.username);
    // The invited address is filled in already.
    expect(await newcomerPage.getByLabel(messages.register.email).inputValue()).toBe(newcomer.email);
    await newcomerPage.getByRole('textbox', { name: messages.register.password, exact: true }).fill(newcomer.password);
    await newcomerPage.getByLabel(messages.register.confirmPassword).fill(newcomer.password);
    await newcomerPage.getByRole('button', { name: messages.register.submit }).click();
    await newcomerPage.waitForURL(/\/invite\//);
    // Not before the address is verified: the page says so, and the mail's link does it.
    await newcomerPage.getByRole('button', { name: messages.invitation.accept }).click();
    await newcomerPage.getByText(messages.invitation.errors.email_unverified!).waitFor();
    const invite = newcomerPage.url();
    await newcomerPage.goto(await newVerificationLink(path.join(live.server.dataDir, 'outbox'), newcomer.email));
    await newcomerPage.getByText(messages.verifyEmail.verifiedTitle).waitFor();
    await newcomerPage.goto(invite);
    await newcomerPage.getByRole('button', { name: messages.invitation.accept }).click();
    await newcomerPage.waitForURL(/\/team$/);
    await newcomerPage.getByRole('heading', { name: 'Ada Lovelace’s team', level: 1 }).waitFor();

    // The known person signs in from the link.
    const knownPage = await newPage();
    await knownPage.goto(await invitationLink(known.email));
    await knownPage.getByRole('link', { name: messages.invitation.signIn }).click();
    await signIn(knownPage, known);
    await knownPage.waitForURL(/\/invite\//);
    await knownPage.getByRole('button', { name: messages.invitation.accept }).click();
    await knownPage.waitForURL(/\/team$/);
    expect((await api('GET', '/users/me', undefined, knownSession.access_token)).body.subscription_plan).toBe('team');

    // The owner caps Grace at one query a month; her second query is refused.
    await page.reload();
    await page.getByRole('button', { name: `${t.setCap}: ${known.full_name}` }).click();
    await page.getByLabel(t.capLabel(known.full_name)).fill('1');
    await page.getByRole('button', { name: t.saveCap }).click();
    const members = page.getByRole('region', { name: t.membersHeading });
    await members.getByRole('row', { name: new RegExp(known.full_name) }).getByRole('cell', { name: '1', exact: true }).waitFor();
    const ask = () => api('POST', '/query', { task: 'formula', prompt: 'Sum of column B' }, knownSession.access_token);
    expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect([refused.status, refused.body.error.code]).toEqual([429, 'member_cap_reached']);

    // The CSV of the month.
    await page.reload();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: t.downloadCsv }).click();
    const file = await download;
    const csv = fs.readFileSync((await file.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('\uFEFFdate,user_id,full_name,email,queries,tokens');
    expect(csv).toContain(`,Grace Hopper,${known.email},1,`);

    // Removing Grace puts her back on Free.
    await page.getByRole('button', { name: `${t.remove}: ${known.full_name}` }).click();
    await page.getByRole('button', { name: t.confirm }).click();
    await members.getByRole('row', { name: new RegExp(known.full_name) }).waitFor({ state: 'detached' });
    expect((await api('GET', '/users/me', undefined, knownSession.access_token)).body.subscription_plan).toBe('free');

    // The audit log tells the story, newest first.
    const log = page.getByRole('region', { name: t.auditHeading });
    const rows = await log.getByRole('row').allInnerTexts();
    const story = rows.slice(1).map((row) => row.split('\t')[2]);
    expect(story.slice(0, 7)).toEqual([
      `${t.actionsText['member.removed']} Grace Hopper (member)`,
      `${t.actionsText['member.cap_changed']} Grace Hopper (no cap → 1)`,
      `${t.actionsText['member.joined']} (member)`,
      `${t.actionsText['member.joined']} (member)`,
      `${t.actionsText['invitation.created']} ${known.email} (member)`,
      `${t.actionsText['invitation.created']} ${newcomer.email} (member)`,
      `${t.actionsText['team.created']} Ada Lovelace’s team`,
    ]);

    expect(await seriousViolations(page)).toEqual([]);
    expect(watch.cspViolations).toEqual([]);
  });

  it('shows /team and /invite with no serious or critical axe finding on a phone and on a desktop, light and dark', async () => {
    const { baseUrl, dataDir } = live.server;
    const api = apiClient(baseUrl);
    const owner = await signUp(api, 'Ada Lovelace');
    const member = await signUp(api, 'Grace Hopper');
    await api.subscribe(member.tokens.access_token, 'professional');
    const invited = `invited${stamp}@example.com`;
    const seen = invitationLinksIn(dataDir, invited).length;
    await makeTeam(api, dataDir, owner, [member], [invited]);
    const link = await newInvitationLink(dataDir, invited, seen);
    const outsider = await signUp(api, 'Alan Turing');
    const pages = [
      { who: 'the owner', tokens: owner.tokens, url: '/team', heading: 'Ada Lovelace’s team' },
      { who: 'a member paying for their own plan', tokens: member.tokens, url: '/team', heading: 'Ada Lovelace’s team' },
      { who: 'someone in no team', tokens: outsider.tokens, url: '/team', heading: t.offerHeading },
      { who: 'a visitor', tokens: null, url: new URL(link).pathname, heading: messages.invitation.heading('Ada Lovelace’s team') },
      { who: 'someone signed in with another address', tokens: outsider.tokens, url: new URL(link).pathname, heading: messages.invitation.heading('Ada Lovelace’s team') },
    ];
    const found: string[] = [];
    for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 900 }]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const { who, tokens, url, heading } of pages) {
          const context = await live.browser.newContext({ viewport, colorScheme });
          contexts.push(context);
          const page = await context.newPage();
          if (tokens) await page.addInitScript((pair) => {
            for (const [key, value] of Object.entries(pair)) localStorage.setItem(key, value);
          }, storedTokens(tokens));
          await page.goto(`${baseUrl}${url}`);
          await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
          if (url === '/team' && tokens === owner.tokens) await page.getByRole('heading', { name: t.auditHeading }).waitFor();
          found.push(...(await seriousViolations(page)).map((finding) => `${url} for ${who}, ${viewport.width}px ${colorScheme}: ${finding}`));
          await context.close();
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('offers every action whole and reachable, with no sideways scroll, to the owner, an admin and a member at 1280×900 and 390×844', async () => {
    const { baseUrl, dataDir } = live.server;
    const client = apiClient(baseUrl);
    const owner = await signUp(client, 'Ada Lovelace');
    const admin = await signUp(client, 'Grace Hopper');
    const luke = 'Łukasz Świątek, "Luke"';
    const member = await signUp(client, luke);
    await makeTeam(client, dataDir, owner, [admin, member], []);
    expect((await api('PATCH', `/teams/me/members/${admin.id}`, { role: 'admin' }, owner.tokens.access_token)).status).toBe(200);
    const views = [
      { who: 'owner', tokens: owner.tokens, buttons: [`${t.setCap}: Grace Hopper`, `${t.makeMember}: Grace Hopper`, `${t.makeOwner}: Grace Hopper`, `${t.remove}: Grace Hopper`, `${t.remove}: ${luke}`, t.saveName, t.saveDefaultCap] },
      { who: 'admin', tokens: admin.tokens, buttons: [t.leave, `${t.setCap}: ${luke}`, `${t.remove}: ${luke}`, t.saveName, t.saveDefaultCap] },
      { who: 'member', tokens: member.tokens, buttons: [t.leave] },
    ];
    /** Where a control is cut off: by the window's edge, or by an ancestor that clips or scrolls what overflows it. */
    const clipped = (page: Page, name: string) =>
      page.getByRole('button', { name, exact: true }).evaluate((button) => {
        const box = button.getBoundingClientRect();
        const width = document.documentElement.clientWidth;
        if (box.left < 0 || box.right > width) return `past the window's edge (${Math.round(box.left)}–${Math.round(box.right)} of ${width})`;
        if (button.scrollWidth > button.clientWidth + 1) return 'its own text is cut';
        for (let el = button.parentElement; el && el !== document.body; el = el.parentElement) {
          if (getComputedStyle(el).overflowX === 'visible') continue;
          const outer = el.getBoundingClientRect();
          if (box.left < outer.left - 1 || box.right > outer.right + 1) return `cut by ${el.tagName.toLowerCase()}.${el.className}`;
          if (el.scrollWidth > el.clientWidth + 1) return `inside a sideways scroll (${el.tagName.toLowerCase()})`;
        }
        return null;
      });
    const problems: string[] = [];
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      for (const { who, tokens, buttons } of views) {
        const context = await live.browser.newContext({ viewport });
        contexts.push(context);
        const page = await context.newPage();
        await page.addInitScript((pair) => {
          for (const [key, value] of Object.entries(pair)) localStorage.setItem(key, value);
        }, storedTokens(tokens));
        await page.goto(`${baseUrl}/team`);
        await page.getByRole('heading', { name: 'Ada Lovelace’s team', level: 1 }).waitFor();
        const where = `${who} at ${viewport.width}×${viewport.height}`;
        for (const name of buttons) {
          const problem = await clipped(page, name);
          if (problem) problems.push(`${where}: "${name}" ${problem}`);
        }
        if (who === 'owner') {
          // The cap editor open on a row: its Save and Cancel whole too.
          await page.getByRole('button', { name: `${t.setCap}: ${luke}`, exact: true }).click();
          for (const name of [t.saveCap, t.cancel]) {
            const problem = await clipped(page, name);
            if (problem) problems.push(`${where}, cap editor: "${name}" ${problem}`);
          }
        }
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (sideways > 0) problems.push(`${where}: the page scrolls sideways by ${sideways}px`);
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  });
});

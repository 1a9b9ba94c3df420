import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { seriousViolations, useServerAndBrowser, watchPage } from '../helpers/browser';
import { HELD_SENTENCE } from '../helpers/fixtures';
import { apiClient, makeTeam, openContext, setUpAuthenticator, signUp, storedTokens } from '../helpers/browserPaths';

/**
 * The team's security policy in Chromium against the real server (decisions.md, "Team security
 * policy"): the owner is refused the requirement until they have a second factor of their own, in
 * the server's words; with an authenticator app they turn it on and set a session limit on /team;
 * the members table shows who has a second factor; a member without one is held to setting one up.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser();
const t = messages.team;
const OWNER = 'Ada Lovelace';
const MEMBER = 'Grace Hopper';
const OWN_FACTOR_FIRST = 'Set up two-step sign-in for yourself first: then you can require it of the team without locking yourself out.';

async function savePolicy(page: Page, hours: string) {
  const section = page.getByRole('region', { name: t.securityHeading });
  const toggle = section.getByRole('checkbox', { name: t.requireTwoFactor });
  if (!(await toggle.isChecked())) await section.getByText(t.requireTwoFactor, { exact: true }).click();
  expect(await toggle.isChecked()).toBe(true);
  await section.getByLabel(t.sessionMaxAge).fill(hours);
  await section.getByRole('button', { name: t.saveSecurity }).click();
}

describe('the team security policy in Chromium', () => {
  it('requires two-step sign-in and a session limit from /team, shows each member’s second factor, and holds a member without one', async () => {
    const api = apiClient(live.server.baseUrl);
    const owner = await signUp(api, OWNER);
    const member = await signUp(api, MEMBER);
    await makeTeam(api, live.server.dataDir, owner, [member]);

    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    try {
      const watch = await watchPage(page);
      await page.goto(`${live.server.baseUrl}/team`);
      await page.getByRole('heading', { name: t.securityHeading, level: 2 }).waitFor();
      const row = (name: string) => page.getByRole('region', { name: t.membersHeading }).getByRole('row', { name: new RegExp(name) });
      await row(OWNER).getByText(t.secondFactors.none!, { exact: true }).waitFor();

      // Without a second factor of their own, the owner is refused, in the server's words; an hour count out of range is refused before sending.
      await savePolicy(page, '721');
      await page.getByText(t.sessionMaxAgeInvalid).waitFor();
      await savePolicy(page, '12');
      await page.getByText(OWN_FACTOR_FIRST).waitFor();
      expect((await api.call<{ team: { require_two_factor: boolean } }>('GET', '/teams/me', undefined, owner.tokens.access_token)).body.team.require_two_factor).toBe(false);

      // With an authenticator app, the same clicks turn the requirement on.
      await setUpAuthenticator(api, owner.tokens.access_token);
      await page.reload();
      await row(OWNER).getByText(t.secondFactors.authenticator_app!, { exact: true }).waitFor();
      await savePolicy(page, '12');
      await page.getByText(t.securitySaved).waitFor();
      const saved = await api.call<{ team: { require_two_factor: boolean; session_max_age_hours: number | null } }>('GET', '/teams/me', undefined, owner.tokens.access_token);
      expect(saved.body.team).toMatchObject({ require_two_factor: true, session_max_age_hours: 12 });
      // Grace has none: "Off", in the warning colour while the team requires it.
      const off = row(MEMBER).getByText(t.secondFactors.none!, { exact: true });
      await off.waitFor();
      expect(await off.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(
        await row(OWNER).getByText(t.secondFactors.authenticator_app!, { exact: true }).evaluate((el) => getComputedStyle(el).backgroundColor),
      );
      const audit = page.getByRole('group', { name: t.auditHeading });
      await audit.getByText(new RegExp(`^${t.actionsText['team.two_factor_policy_changed']}`)).first().waitFor();
      await audit.getByText(new RegExp(`^${t.actionsText['team.session_policy_changed']}`)).first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(watch.cspViolations).toEqual([]);
    } finally {
      await context.close();
    }

    // Grace, signed in without a second factor, is told what to do on the pages she opens.
    const held = await openContext(live.browser, storedTokens(member.tokens));
    try {
      await held.page.goto(`${live.server.baseUrl}/usage`);
      await held.page.getByText(HELD_SENTENCE).waitFor();
      // Every signed-in page says it at the top, with the way to the set-up; setting it up there lets her on at once.
      const banner = held.page.getByText(messages.security.requiredText);
      await banner.waitFor();
      await held.page.getByRole('link', { name: messages.security.requiredAction, exact: true }).click();
      await held.page.waitForURL(`${live.server.baseUrl}/profile#two-step-sign-in`);
      const section = held.page.getByRole('region', { name: messages.security.title });
      await section.getByRole('button', { name: messages.security.setUp }).click();
      const secret = (await section.getByLabel(messages.security.manualKey).innerText()).replace(/\s/g, '');
      await section.getByLabel(messages.security.codeLabel).fill(TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }));
      await section.getByRole('button', { name: messages.security.turnOn }).click();
      await section.getByText(messages.security.codesTitle).waitFor();
      expect(await banner.count()).toBe(0);
      await held.page.getByRole('navigation', { name: messages.layout.mainNav }).getByRole('link', { name: messages.layout.usage, exact: true }).click();
      await held.page.getByRole('heading', { level: 1, name: messages.usage.title }).waitFor();
      expect(await held.page.getByText(HELD_SENTENCE).count()).toBe(0);
    } finally {
      await held.context.close();
    }
  });

  it('shows a held member on /team why the team is out of reach, and lets her leave without a second factor', async () => {
    const api = apiClient(live.server.baseUrl);
    const owner = await signUp(api, OWNER);
    const member = await signUp(api, MEMBER);
    await makeTeam(api, live.server.dataDir, owner, [member]);
    const { body } = await api.call<{ team: { name: string } }>('GET', '/teams/me', undefined, owner.tokens.access_token);
    await setUpAuthenticator(api, owner.tokens.access_token);
    expect((await api.call('PATCH', '/teams/me/security', { require_two_factor: true }, owner.tokens.access_token)).status).toBe(200);

    const { context, page } = await openContext(live.browser, storedTokens(member.tokens));
    try {
      const watch = await watchPage(page);
      await page.goto(`${live.server.baseUrl}/team`);
      // The team and the server's sentence, not a failure with a retry that would fail again.
      const main = page.getByRole('main');
      await main.getByRole('heading', { level: 1, name: body.team.name }).waitFor();
      await main.getByText(HELD_SENTENCE).waitFor();
      expect(await main.getByText(t.loadFailed).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await main.getByRole('button', { name: t.leave }).click();
      const dialog = page.getByRole('alertdialog', { name: t.leaveTitle });
      await dialog.getByRole('button', { name: t.confirm }).click();
      // Out of the team she is on her dashboard, held by nothing: the banner is gone.
      await page.waitForURL(`${live.server.baseUrl}/dashboard`);
      await page.getByText(t.done).first().waitFor();
      expect(await page.getByText(messages.security.requiredText).count()).toBe(0);
      expect((await api.call('GET', '/teams/me', undefined, member.tokens.access_token)).status).toBe(404);
      expect(watch.cspViolations).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

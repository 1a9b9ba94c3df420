import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findPlan, formatPrice, PLANS, type Plan } from '../../contract/plans';
import type { Config } from '../config';
import type { BillingTestSessionsTable } from '../db/types';
import { findSubscription, subscriptionView } from '../domain/subscriptions';
import { escapeHtml } from '../../contract/pageSlots';
import { alreadyInTeamToPay } from '../domain/teams';
import { returnUrls } from './provider';
import type { SessionKind, SessionLookup, TestProvider } from './testMode';

/**
 * The test-mode provider's hosted pages: plain server-rendered HTML forms, no script at all, one
 * style element carrying the response's CSP nonce, so they pass the site's strict policy.
 */

const CHECKOUT_PATH = '/billing/test/checkout';
const MANAGE_PATH = '/billing/test/manage';

/**
 * The SPA's font stack (Chakra's body font, which the app keeps), so that the checkout reads as
 * part of the product; a browser test compares the two.
 */
const FONT_STACK = `Inter, -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol"`;

/** Light and dark, as the system asks (the SPA follows it too); every text at WCAG AA in both. */
const STYLE = `
  :root {
    color-scheme: light dark; font-family: ${FONT_STACK};
    --page: #f4f6f8; --card: #fff; --text: #1a202c; --muted: #4a5568; --line: #a0aec0; --link: #2b6cb0;
    --accent: #0f766e; --on-accent: #fff; --ring: #2b6cb0; --shadow: 0 1px 4px rgba(0,0,0,.12);
    --mode-bg: #fefcbf; --mode-fg: #744210;
    --error-bg: #fff5f5; --error-fg: #9b2c2c; --error-line: #feb2b2;
    --notice-bg: #f0fff4; --notice-fg: #22543d; --notice-line: #9ae6b4;
  }
  @media (prefers-color-scheme: dark) {
    :root {
      --page: #111111; --card: #18181b; --text: #f4f4f5; --muted: #a1a1aa; --line: #71717a; --link: #5ccbbb;
      --secondary: #5ccbbb; --ring: #5ccbbb; --shadow: 0 0 0 1px #27272a;
      --mode-bg: #422006; --mode-fg: #fde68a;
      --error-bg: #3b0d0d; --error-fg: #fecaca; --error-line: #9b2c2c;
      --notice-bg: #0f2e1d; --notice-fg: #bbf7d0; --notice-line: #276749;
    }
  }
  body { margin: 0; background: var(--page); color: var(--text); }
  main { max-width: 30rem; margin: 2rem auto; padding: 2rem; background: var(--card); border-radius: 0.75rem; box-shadow: var(--shadow); }
  h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
  .mode { display: inline-block; margin: 0 0 1rem; padding: .15rem .6rem; border-radius: 999px; background: var(--mode-bg); color: var(--mode-fg); font-size: .85rem; font-weight: 600; }
  .price { font-size: 1.25rem; margin: .25rem 0 1rem; }
  label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
  input { box-sizing: border-box; width: 100%; padding: .6rem .7rem; font: inherit; font-size: 1rem; color: inherit; background: var(--card); border: 1px solid var(--line); border-radius: .4rem; }
  input:focus, button:focus { outline: 3px solid var(--ring); outline-offset: 2px; }
  .row { display: flex; gap: 1rem; }
  .row > div { flex: 1; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.5rem; }
  button { padding: .65rem 1.2rem; font: inherit; font-size: 1rem; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); cursor: pointer; }
  button.secondary { background: transparent; color: var(--secondary, var(--accent)); border-color: var(--secondary, var(--accent)); }
  .error { margin: 1rem 0; padding: .75rem 1rem; border-radius: .4rem; background: var(--error-bg); color: var(--error-fg); border: 1px solid var(--error-line); }
  .notice { margin: 1rem 0; padding: .75rem 1rem; border-radius: .4rem; background: var(--notice-bg); color: var(--notice-fg); border: 1px solid var(--notice-line); }
  .hint { color: var(--muted); font-size: .9rem; margin-top: 1.5rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .4rem 1rem; }
  dt { font-weight: 600; }
  dd { margin: 0; }
  a { color: var(--link); }
`;

const longDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });

interface PageParts {
  title: string;
  body: string;
}

function page(reply: FastifyReply, config: Config, status: number, parts: PageParts) {
  const brand = escapeHtml(config.web.brandName);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)} · ${brand}</title>
<style nonce="${reply.cspNonce.style}">${STYLE}</style>
</head>
<body>
<main>
<p class="mode">${brand} test mode: no real payment is taken</p>
${parts.body}
</main>
</body>
</html>`;
  // The address carries the session's token: never cache the page, never pass the address on.
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer')
    .send(html);
}

const backLink = (config: Config) => `<p><a href="${escapeHtml(returnUrls(config.publicUrl).manage)}">Back to your subscription</a></p>`;

const LINK_PROBLEMS: Record<Exclude<SessionLookup, { ok: true }>['reason'], [number, string]> = {
  unknown: [404, 'This link is not valid. Start again from your subscription page.'],
  used: [410, 'This link was already used. Start again from your subscription page.'],
  expired: [410, 'This link has expired (links last 30 minutes). Start again from your subscription page.'],
};

function linkProblem(reply: FastifyReply, config: Config, reason: keyof typeof LINK_PROBLEMS) {
  const [status, message] = LINK_PROBLEMS[reason];
  return page(reply, config, status, {
    title: 'Link not valid',
    body: `<h1>This link cannot be used</h1><p role="alert" class="error">${escapeHtml(message)}</p>${backLink(config)}`,
  });
}

type Form = Record<string, string>;

function field(form: unknown, name: string): string {
  const value = (form as Form | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The expiry as MM/YY, or MMYY as people type it on a card form, valid through the end of that month. */
function expiryProblem(raw: string, now: number): string | null {
  const match = /^(\d{1,2})\s*\/\s*(\d{2})$/.exec(raw.trim()) ?? /^(\d{2})(\d{2})$/.exec(raw.trim());
  const month = Number(match?.[1]);
  if (!match || month < 1 || month > 12) return 'Enter the expiry date as MM/YY, for example 12/30.';
  const firstDayAfter = Date.UTC(2000 + Number(match[2]), month, 1);
  return firstDayAfter <= now ? 'This card has expired. Check the expiry date.' : null;
}

const PAY_PROBLEMS = {
  declined: [402, 'Your card was declined. No payment was taken and your plan has not changed. Try another card.'],
  invalid_card: [400, 'This card number is not valid. Check the number and try again.'],
  failed: [503, 'The payment could not be recorded, so nothing was charged. Please try again.'],
} as const;

/** What the person typed, shown again after a problem; never the CVC, which is typed again each time. */
interface Typed {
  card: string;
  expiry: string;
}

const valueOf = (typed: string | undefined) => (typed ? ` value="${escapeHtml(typed)}"` : '');

function checkoutForm(reply: FastifyReply, config: Config, token: string, plan: Plan, email: string, status = 200, problem?: string, typed?: Typed) {
  const price = formatPrice(plan);
  const body = `
<h1>Subscribe to ${escapeHtml(plan.name)}</h1>
<p class="price"><strong>${price}</strong> per month</p>
<p>Account: ${escapeHtml(email)}</p>
${problem ? `<p role="alert" class="error" id="problem">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${CHECKOUT_PATH}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" maxlength="23" required${valueOf(typed?.card)}${problem ? ' aria-describedby="problem"' : ''}>
<div class="row">
<div><label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" maxlength="7" required${valueOf(typed?.expiry)}></div>
<div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="CVC" maxlength="4" required></div>
</div>
<div class="actions">
<button type="submit" name="action" value="pay">Pay ${price}</button>
<button type="submit" name="action" value="cancel" class="secondary" formnovalidate>Cancel</button>
</div>
</form>
<p class="hint">Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined. Any future expiry date and any 3-digit CVC.</p>`;
  return page(reply, config, status, { title: `Subscribe to ${plan.name}`, body });
}

/** A checkout that can no longer be paid, for a reason the page states; nothing was charged. */
function cannotPay(reply: FastifyReply, config: Config, title: string, text: string) {
  return page(reply, config, 409, { title, body: `<h1>${escapeHtml(title)}</h1><p role="alert" class="error">${escapeHtml(text)}</p>${backLink(config)}` });
}

/** Decisions.md, "Team money and roles": the same words as the checkout call's 409 `already_in_team`. */
const inTeam = (reply: FastifyReply, config: Config) => cannotPay(reply, config, 'This checkout cannot be paid', alreadyInTeamToPay().message);

function cheaperPlans(current: Plan, requested: string): Plan[] {
  // The plan the user asked for comes first; the others are there in case they change their mind.
  return PLANS.filter((plan) => plan.priceUsd < current.priceUsd).sort((a, b) => Number(b.id === requested) - Number(a.id === requested));
}

export async function testModePages(app: FastifyInstance, options: { provider: TestProvider; config: Config }): Promise<void> {
  const { provider, config } = options;
  const { db } = provider.context;
  // Plain HTML forms post url-encoded bodies; only these pages accept them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const open = async (request: FastifyRequest, kind: SessionKind, token: string) => {
    const found = await provider.findSession(token, kind);
    if (!found.ok) request.log.info({ event: 'billing.test_link_refused', kind, reason: found.reason }, 'test-mode link refused');
    return found;
  };
  const userOf = (userId: string) => db.selectFrom('users').select(['email', 'full_name']).where('id', '=', userId).executeTakeFirstOrThrow();
  /** The person acting on the page, for the team's log: the link is bound to them. */
  const actingOn = async (request: FastifyRequest, session: BillingTestSessionsTable) => ({
    person: { id: session.user_id, name: (await userOf(session.user_id)).full_name },
    ip: request.ip,
  });

  app.get(CHECKOUT_PATH, async (request, reply) => {
    const token = field(request.query, 'token');
    const found = await open(request, 'checkout', token);
    if (!found.ok) return linkProblem(reply, config, found.reason);
    if (await provider.payerInTeam(found.session)) return inTeam(reply, config);
    return checkoutForm(reply, config, token, findPlan(found.session.plan)!, (await userOf(found.session.user_id)).email);
  });

  app.post(CHECKOUT_PATH, async (request, reply) => {
    const token = field(request.body, 'token');
    const found = await open(request, 'checkout', token);
    if (!found.ok) return linkProblem(reply, config, found.reason);
    const { session } = found;
    const urls = returnUrls(config.publicUrl);
    if (field(request.body, 'action') === 'cancel') {
      await provider.cancel(session);
      return reply.redirect(urls.cancel, 303);
    }
    if (await provider.payerInTeam(session)) return inTeam(reply, config);
    const plan = findPlan(session.plan)!;
    const { email } = await userOf(session.user_id);
    const card = field(request.body, 'card_number');
    const typed = { card, expiry: field(request.body, 'expiry') };
    const retry = (status: number, problem: string) => checkoutForm(reply, config, token, plan, email, status, problem, typed);
    if (!/^[\d\s-]{12,23}$/.test(card)) return retry(400, PAY_PROBLEMS.invalid_card[1]);
    const expiry = expiryProblem(field(request.body, 'expiry'), provider.context.now());
    if (expiry) return retry(400, expiry);
    if (!/^\d{3,4}$/.test(field(request.body, 'cvc').trim())) return retry(400, 'Enter the 3 or 4 digit security code (CVC).');

    const result = await provider.pay(session, card, await actingOn(request, session));
    if (result === 'paid') return reply.redirect(urls.success, 303);
    if (result === 'in_team') return inTeam(reply, config);
    if (result === 'plan_changed') {
      return cannotPay(reply, config, 'Your plan changed', 'Your plan changed since this checkout began, so nothing was charged. Start again from your subscription page.');
    }
    const [status, problem] = PAY_PROBLEMS[result];
    return retry(status, problem);
  });

  const managePage = async (reply: FastifyReply, session: BillingTestSessionsTable, token: string, status = 200, message?: { text: string; ok: boolean }) => {
    await provider.settle(session.user_id);
    const view = subscriptionView(await findSubscription(db, session.user_id), provider.context.now());
    const current = findPlan(view.plan)!;
    const notice = message ? `<p role="${message.ok ? 'status' : 'alert'}" class="${message.ok ? 'notice' : 'error'}">${escapeHtml(message.text)}</p>` : '';
    if (view.plan === 'free' || view.current_period_end === null) {
      return page(reply, config, status, {
        title: 'Manage your subscription',
        body: `<h1>Manage your subscription</h1>${notice}<p>You are on the ${escapeHtml(current.name)} plan: there is no paid subscription to change.</p>${backLink(config)}`,
      });
    }
    const periodEnd = longDate.format(new Date(view.current_period_end));
    const scheduled = view.scheduled_plan ? findPlan(view.scheduled_plan)! : null;
    const hidden = `<input type="hidden" name="token" value="${escapeHtml(token)}">`;
    const choices = scheduled
      ? `<p class="notice">Your plan changes to ${escapeHtml(scheduled.name)} on ${periodEnd}.</p>
<form method="post" action="${MANAGE_PATH}">${hidden}<div class="actions"><button type="submit" name="change" value="keep">Keep ${escapeHtml(current.name)}</button></div></form>`
      : `<form method="post" action="${MANAGE_PATH}">${hidden}<div class="actions">${cheaperPlans(current, session.plan)
          .map((plan, index) => `<button type="submit" name="change" value="${plan.id}"${index > 0 ? ' class="secondary"' : ''}>Switch to ${escapeHtml(plan.name)} on ${periodEnd}</button>`)
          .join('')}</div></form>
<p class="hint">You keep ${escapeHtml(current.name)} and its limits until ${periodEnd}; nothing is refunded and nothing more is charged.</p>`;
    return page(reply, config, status, {
      title: 'Manage your subscription',
      body: `<h1>Manage your subscription</h1>${notice}
<dl><dt>Plan</dt><dd>${escapeHtml(current.name)} (${formatPrice(current)} per month)</dd>
<dt>${scheduled ? 'Ends' : 'Renews'}</dt><dd>${periodEnd}</dd></dl>
${choices}${backLink(config)}`,
    });
  };

  app.get(MANAGE_PATH, async (request, reply) => {
    const token = field(request.query, 'token');
    const found = await open(request, 'manage', token);
    if (!found.ok) return linkProblem(reply, config, found.reason);
    return managePage(reply, found.session, token);
  });

  app.post(MANAGE_PATH, async (request, reply) => {
    const token = field(request.body, 'token');
    const found = await open(request, 'manage', token);
    if (!found.ok) return linkProblem(reply, config, found.reason);
    const change = field(request.body, 'change');
    const target = change === 'keep' ? null : findPlan(change);
    if (target === undefined) return managePage(reply, found.session, token, 400, { text: 'Choose one of the buttons below.', ok: false });
    const result = await provider.schedule(found.session.user_id, target?.id ?? null, await actingOn(request, found.session));
    const messages = {
      done: [200, target ? `Done: your plan changes to ${target.name} at the end of the period.` : 'Done: your plan stays as it is.'],
      nothing_to_manage: [409, 'There is no paid subscription to change.'],
      not_a_downgrade: [400, 'Only a cheaper plan can be scheduled here; upgrade from your subscription page.'],
      failed: [503, 'The change could not be recorded. Please try again.'],
    } as const;
    const [status, text] = messages[result];
    return managePage(reply, found.session, token, status, { text, ok: result === 'done' });
  });
}

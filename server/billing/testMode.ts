import crypto from 'node:crypto';
import { findPlan, type PlanId } from '../../contract/plans';
import type { Transaction } from 'kysely';
import type { BillingTestSessionsTable, Database, SubscriptionsTable } from '../db/types';
import { findSubscription, planAt } from '../domain/subscriptions';
import { hashToken, randomToken } from '../domain/tokens';
import { inTeamPaidByAnother } from '../domain/teams';
import { handleBillingEvent, type ActingPerson, type BillingContext, type BillingEvent, type Outcome, type SubscriptionObject } from './events';
import type { PaidPlanId } from './prices';
import type { PaymentProvider } from './provider';

/**
 * The offline payment provider (`PAYMENT_PROVIDER=test`): a hosted checkout and a billing-management
 * page served by this server, and the period ends a real provider would announce. Every change it
 * makes is a Stripe-shaped event handed to `handleBillingEvent`, exactly as a webhook would be.
 *
 * Its pages open in a new tab, which has no bearer token (the SPA keeps it in its own storage and
 * the API uses no cookies), so the address itself must say whose session it is. It carries a
 * 256-bit random token, stored only as a hash and bound to the user who asked for it: a checkout
 * link works once and for 30 minutes (like a Stripe Checkout Session, which also expires), a
 * management link for 30 minutes (like a Stripe portal session) since a user may schedule a
 * downgrade and undo it on the same page. The token travels in the query string, which the
 * request log drops, and the pages send no referrer.
 */
export const CHECKOUT_TTL_MS = 30 * 60_000;
export const MANAGE_TTL_MS = 30 * 60_000;

/** The cards of the test-mode checkout (Stripe's test numbers). */
const TEST_CARDS = { success: '4242424242424242', declined: '4000000000000002' } as const;

export type SessionKind = BillingTestSessionsTable['kind'];
export type SessionLookup = { ok: true; session: BillingTestSessionsTable } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/** `in_team`: a Team checkout whose payer joined a team since it began (decisions.md, Team money and roles). */
export type PayResult = 'paid' | 'declined' | 'invalid_card' | 'plan_changed' | 'in_team' | 'failed';
export type ManageResult = 'done' | 'nothing_to_manage' | 'not_a_downgrade' | 'failed';

export interface TestProvider extends PaymentProvider {
  readonly name: 'test';
  readonly context: BillingContext;
  findSession(token: string, kind: SessionKind): Promise<SessionLookup>;
  /** Charges a card number (spaces allowed) for a checkout session; `by` is the person paying, for the team's log. */
  pay(session: BillingTestSessionsTable, cardNumber: string, by?: ActingPerson): Promise<PayResult>;
  /** Whether a Team checkout's payer is now in a team someone else pays for (it cannot be paid). */
  payerInTeam(session: BillingTestSessionsTable): Promise<boolean>;
  cancel(session: BillingTestSessionsTable): Promise<void>;
  /** Schedules a downgrade to `plan` at the period end; `null` undoes a scheduled one. */
  schedule(userId: string, plan: PlanId | null, by?: ActingPerson): Promise<ManageResult>;
  /** Ends or renews every test-mode period that is over (the timer calls it); the retention job forgets old links. */
  settleDue(): Promise<void>;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** One calendar month later (UTC), on the same day or the month's last day, as Stripe bills. */
export function addMonth(ms: number): number {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds());
}

function priceRank(plan: PlanId): number {
  return findPlan(plan)!.priceUsd;
}

interface SubscriptionShape {
  id: string;
  customer: string;
  userId: string;
  plan: PaidPlanId;
  start: number;
  end: number;
  status?: SubscriptionObject['status'];
  /** The plan the subscription moves to at `end` (free: it ends). */
  scheduled?: PlanId | null;
}

export function createTestProvider(options: { context: BillingContext; baseUrl: string; settleEveryMs?: number }): TestProvider {
  const { context, baseUrl } = options;
  const { db } = context;
  const handle = (event: BillingEvent) => handleBillingEvent(context, event);

  const subscriptionObject = (shape: SubscriptionShape): SubscriptionObject => {
    const scheduled = shape.scheduled ?? null;
    return {
      id: shape.id,
      object: 'subscription',
      customer: shape.customer,
      status: shape.status ?? 'active',
      cancel_at_period_end: scheduled !== null,
      cancel_at: null,
      metadata: {
        user_id: shape.userId,
        // Stripe would keep a scheduled plan in a subscription schedule; one price id says the same.
        ...(scheduled && scheduled !== 'free' ? { scheduled_price: context.prices.priceOf(scheduled) } : {}),
      },
      items: { data: [{ price: { id: context.prices.priceOf(shape.plan) }, current_period_start: seconds(shape.start), current_period_end: seconds(shape.end) }] },
    };
  };

  const shapeOf = (row: SubscriptionsTable): SubscriptionShape => ({
    id: row.provider_subscription_id!,
    customer: row.provider_customer_id!,
    userId: row.user_id,
    plan: row.plan as PaidPlanId,
    start: row.current_period_start!,
    end: row.current_period_end!,
    scheduled: row.cancel_at_period_end === 1 ? (row.scheduled_plan ?? 'free') : null,
  });

  const event = (id: string, type: string, at: number, object: unknown): BillingEvent => ({ id, type, created: seconds(at), data: { object } });

  /** A running test-mode subscription whose period is over: ends it, moves it to the scheduled plan, or renews it. */
  const settleRow = async (row: SubscriptionsTable, now: number): Promise<void> => {
    const running = row.status === 'active' || row.status === 'past_due';
    if (row.provider !== 'test' || !running || row.current_period_end === null || row.current_period_end > now) return;
    const shape = shapeOf(row);
    const end = row.current_period_end;
    // Event ids are derived from the period, so two requests settling it at once apply it once.
    if (shape.scheduled === 'free') {
      await handle(event(`evt_test_${shape.id}_end_${seconds(end)}`, 'customer.subscription.deleted', end, subscriptionObject({ ...shape, status: 'canceled', scheduled: null })));
      return;
    }
    let start = end;
    while (addMonth(start) <= now) start = addMonth(start);
    const plan = (shape.scheduled ?? shape.plan) as PaidPlanId;
    const renewed = subscriptionObject({ ...shape, plan, start, end: addMonth(start), scheduled: null });
    if (shape.scheduled) {
      await handle(event(`evt_test_${shape.id}_change_${seconds(start)}`, 'customer.subscription.updated', start, renewed));
    } else {
      const invoice = { id: `in_test_${shape.id}_${seconds(start)}`, object: 'invoice', parent: { subscription_details: { subscription: renewed } } };
      await handle(event(`evt_test_${shape.id}_renew_${seconds(start)}`, 'invoice.paid', start, invoice));
    }
  };

  const settle = async (userId: string) => {
    const row = await findSubscription(db, userId);
    if (row) await settleRow(row, context.now());
  };

  const openSession = async (kind: SessionKind, userId: string, plan: PlanId): Promise<string> => {
    const token = randomToken();
    const now = context.now();
    await db
      .insertInto('billing_test_sessions')
      .values({ token_hash: hashToken(token), kind, user_id: userId, plan, created_at: now, expires_at: now + (kind === 'checkout' ? CHECKOUT_TTL_MS : MANAGE_TTL_MS), used_at: null })
      .execute();
    return `${baseUrl}/billing/test/${kind}?token=${encodeURIComponent(token)}`;
  };

  const markUsed = (session: BillingTestSessionsTable) =>
    db.updateTable('billing_test_sessions').set({ used_at: context.now() }).where('token_hash', '=', session.token_hash).where('used_at', 'is', null).execute();

  const applied = (outcome: Outcome) => outcome === 'applied' || outcome === 'duplicate';

  let timer: NodeJS.Timeout | null = null;

  const provider: TestProvider = {
    name: 'test',
    context,

    checkoutUrl: ({ user, plan }) => openSession('checkout', user.id, plan),
    manageUrl: ({ user, plan }) => openSession('manage', user.id, plan),
    settle,

    async findSession(token, kind) {
      const session = await db
        .selectFrom('billing_test_sessions')
        .selectAll()
        .where('token_hash', '=', hashToken(token))
        .where('kind', '=', kind)
        .executeTakeFirst();
      if (!session) return { ok: false, reason: 'unknown' };
      if (session.used_at !== null) return { ok: false, reason: 'used' };
      if (session.expires_at <= context.now()) return { ok: false, reason: 'expired' };
      return { ok: true, session };
    },

    payerInTeam: (session) => (session.plan === 'team' ? inTeamPaidByAnother(db, session.user_id) : Promise.resolve(false)),

    async pay(session, cardNumber, by) {
      const card = cardNumber.replace(/[\s-]/g, '');
      if (card === TEST_CARDS.declined) return 'declined';
      if (card !== TEST_CARDS.success) return 'invalid_card';
      await settle(session.user_id);
      const row = await findSubscription(db, session.user_id);
      const now = context.now();
      // Another tab may have changed the plan since this checkout began.
      if (priceRank(session.plan) <= priceRank(planAt(row, now))) return 'plan_changed';
      const reuse = row?.provider === 'test' && row.status !== 'canceled';
      const start = seconds(now) * 1000;
      const subscription = subscriptionObject({
        id: reuse ? row.provider_subscription_id! : `sub_test_${crypto.randomUUID()}`,
        customer: row?.provider === 'test' && row.provider_customer_id ? row.provider_customer_id : `cus_test_${crypto.randomUUID()}`,
        userId: session.user_id,
        plan: session.plan as PaidPlanId,
        start,
        end: addMonth(start),
      });
      const checkoutId = `cs_test_${session.token_hash.slice(0, 32)}`;
      const completed = {
        id: checkoutId,
        object: 'checkout.session',
        mode: 'subscription',
        payment_status: 'paid',
        client_reference_id: session.user_id,
        customer: subscription.customer,
        subscription,
      };
      // One event id per checkout: a double-submitted form pays once. The checkout is claimed where
      // the payment is applied, under the user's lock, and closes the user's other checkouts: one
      // paid at the same moment (another plan, in another tab) finds its own closed and is refused,
      // never applied as a second subscription.
      const eventId = `evt_test_${checkoutId}`;
      let inTeam = false;
      const claim = async (trx: Transaction<Database>, current: SubscriptionsTable | undefined) => {
        const now = context.now();
        if (priceRank(session.plan) <= priceRank(planAt(current, now))) return false;
        // Checked here, under the payer's lock: a join that commits first is seen.
        inTeam = session.plan === 'team' && (await inTeamPaidByAnother(trx, session.user_id));
        if (inTeam) return false;
        const closed = await trx
          .updateTable('billing_test_sessions')
          .set({ used_at: now })
          .where('user_id', '=', session.user_id)
          .where('kind', '=', 'checkout')
          .where('used_at', 'is', null)
          .returning('token_hash')
          .execute();
        return closed.some((row) => row.token_hash === session.token_hash);
      };
      let outcome = await handleBillingEvent(context, event(eventId, 'checkout.session.completed', start, completed), { precondition: claim, actor: by });
      if (outcome === 'duplicate') {
        const first = await db.selectFrom('billing_events').select('outcome').where('id', '=', eventId).executeTakeFirst();
        if (first?.outcome === 'refused') outcome = 'refused';
      }
      if (outcome === 'refused') return inTeam ? 'in_team' : 'plan_changed';
      if (!applied(outcome)) return 'failed';
      await markUsed(session);
      return 'paid';
    },

    async cancel(session) {
      await markUsed(session);
    },

    async schedule(userId, plan, by) {
      await settle(userId);
      const row = await findSubscription(db, userId);
      const now = context.now();
      const current = planAt(row, now);
      if (!row || row.provider !== 'test' || current === 'free' || current !== row.plan) return 'nothing_to_manage';
      if (plan !== null && priceRank(plan) >= priceRank(current)) return 'not_a_downgrade';
      const updated = subscriptionObject({ ...shapeOf(row), scheduled: plan });
      const outcome = await handleBillingEvent(context, event(`evt_test_${crypto.randomUUID()}`, 'customer.subscription.updated', now, updated), { actor: by });
      return applied(outcome) ? 'done' : 'failed';
    },

    async settleDue() {
      const now = context.now();
      const due = await db
        .selectFrom('subscriptions')
        .selectAll()
        .where('provider', '=', 'test')
        .where('current_period_end', '<=', now)
        .where('status', 'in', ['active', 'past_due'])
        .limit(500)
        .execute();
      for (const row of due) await settleRow(row, now);
    },

    close() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };

  // Periods also end while nobody looks (on read is enough for what users see; this keeps the
  // stored rows current too). Settling is idempotent, so every instance may run it.
  if (options.settleEveryMs) {
    timer = setInterval(() => {
      provider.settleDue().catch((error: unknown) => context.log.error({ err: error }, 'test-mode billing: settling periods failed'));
    }, options.settleEveryMs);
    timer.unref();
  }
  return provider;
}

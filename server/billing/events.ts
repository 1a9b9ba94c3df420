import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { PlanId } from '../../contract/plans';
import type { Database, Engine, SubscriptionStatus, SubscriptionsTable } from '../db/types';
import { findSubscription } from '../domain/subscriptions';
import type { AuditActor } from '../domain/auditLog';
import { ensureTeamOf, inTeamPaidByAnother, JoinedTeamMeanwhile, recordPlanChange } from '../domain/teams';
import type { PriceBook } from './prices';

/**
 * The one place where payment-provider events change a subscription. Stripe's webhooks and the
 * test-mode provider both hand their events here, in Stripe's shape.
 *
 * Guarantees:
 * - Idempotent: the event id is a UNIQUE row written in the transaction that applies the event,
 *   so a redelivery (or five at once) changes nothing, and a failed transaction leaves no row
 *   behind, so the provider's retry is applied.
 * - Any order: every subscription row remembers the provider time of the newest event applied;
 *   an older event is recorded as `stale` and changes nothing. A cancelled subscription is never
 *   revived by a late event about it (Stripe cannot revive one either).
 * - The plan comes from the subscription's price through the server's price book; an event with
 *   a price we do not sell changes nothing.
 */

/** What the handler reads of an event. `Stripe.Event` has this shape; so do the test provider's. */
export interface BillingEvent {
  id: string;
  type: string;
  /** Seconds since the epoch, as Stripe counts. */
  created: number;
  data: { object: unknown };
}

/** What the handler reads of a Stripe subscription (API 2025-03-31 and later: periods on items). */
export interface SubscriptionObject {
  id: string;
  object: 'subscription';
  customer: string | { id: string };
  status: Stripe.Subscription.Status;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  /** `user_id` is set by our checkout; `scheduled_price` by the test provider's downgrades. */
  metadata: Record<string, string>;
  items: { data: Array<{ price: { id: string }; current_period_start: number; current_period_end: number }> };
}

export interface CheckoutSessionObject {
  id: string;
  object: 'checkout.session';
  mode: string;
  payment_status: string;
  client_reference_id: string | null;
  customer: string | { id: string } | null;
  subscription: string | SubscriptionObject | null;
}

export interface InvoiceObject {
  id: string;
  object: 'invoice';
  parent: { subscription_details: { subscription: string | SubscriptionObject } | null } | null;
}

const HANDLED_EVENTS = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

/** `refused`: a second subscription while the user's current one runs (a payment made twice). */
export type Outcome = 'applied' | 'duplicate' | 'stale' | 'ignored' | 'refused';

/**
 * Runs in the transaction that applies the change, once the user's subscriptions are locked, and
 * may write in it; false refuses the change. The test provider claims its checkout here: a check
 * made before the transaction can be passed by two payments at once.
 */
export type Precondition = (trx: Transaction<Database>, row: SubscriptionsTable | undefined) => Promise<boolean>;

export interface BillingContext {
  db: Kysely<Database>;
  engine: Engine;
  provider: 'test' | 'stripe';
  prices: PriceBook;
  /** The provider's current copy of a subscription an event names only by id. */
  retrieveSubscription(id: string): Promise<SubscriptionObject>;
  now(): number;
  log: FastifyBaseLogger;
}

type Change =
  | { kind: 'snapshot'; userId: string | null; subscription: SubscriptionObject }
  | { kind: 'payment_failed'; subscriptionId: string };

type Trx = Transaction<Database>;

const idOf = (ref: string | { id: string }) => (typeof ref === 'string' ? ref : ref.id);

async function expand(context: BillingContext, ref: string | SubscriptionObject): Promise<SubscriptionObject> {
  return typeof ref === 'string' ? context.retrieveSubscription(ref) : ref;
}

/** Reads the event into a change, fetching the subscription when the event only names it. */
async function changeOf(context: BillingContext, event: BillingEvent): Promise<Change | null> {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object as CheckoutSessionObject;
      // An unpaid session (a delayed payment method) is settled later by the subscription's events.
      const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
      if (session.mode !== 'subscription' || !paid || !session.subscription) return null;
      return { kind: 'snapshot', userId: session.client_reference_id, subscription: await expand(context, session.subscription) };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return { kind: 'snapshot', userId: null, subscription: event.data.object as SubscriptionObject };
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const ref = (event.data.object as InvoiceObject).parent?.subscription_details?.subscription;
      if (!ref) return null;
      if (event.type === 'invoice.payment_failed') return { kind: 'payment_failed', subscriptionId: idOf(ref) };
      return { kind: 'snapshot', userId: null, subscription: await expand(context, ref) };
    }
    default:
      return null;
  }
}

/**
 * Our four statuses from Stripe's eight: trialing counts as active; unpaid and paused give no
 * service but can come back (incomplete); incomplete_expired is as final as canceled.
 */
function statusOf(status: Stripe.Subscription.Status): SubscriptionStatus {
  switch (status) {
    case 'active':
    case 'trialing':
      return 'active';
    case 'past_due':
      return 'past_due';
    case 'canceled':
    case 'incomplete_expired':
      return 'canceled';
    default:
      return 'incomplete';
  }
}

async function userExists(trx: Trx, context: BillingContext, userId: string): Promise<boolean> {
  // On PostgreSQL the user's row is locked, so two events for one user apply one after the
  // other and each sees the state the previous one left. SQLite runs one transaction at a time.
  // No KEY lock: rows that refer to the user (a join's membership, a session) are not held up,
  // and a join in flight cannot deadlock with this event over the membership both would write.
  const row = await trx
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .$if(context.engine === 'postgres', (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The user a change belongs to, as stored now: whoever holds the subscription (a team's moves to
 * its new owner on a transfer, so the ids our checkout named may be a former owner's), else the
 * user our checkout named, else whoever holds the provider's customer.
 */
async function holderOf(trx: Trx, change: Change): Promise<string | null> {
  const subscriptionId = change.kind === 'snapshot' ? change.subscription.id : change.subscriptionId;
  const known = await trx.selectFrom('subscriptions').select('user_id').where('provider_subscription_id', '=', subscriptionId).executeTakeFirst();
  if (known) return known.user_id;
  if (change.kind !== 'snapshot') return null;
  const named = change.userId ?? change.subscription.metadata?.user_id;
  if (named) return named;
  const byCustomer = await trx
    .selectFrom('subscriptions')
    .select('user_id')
    .where('provider_customer_id', '=', idOf(change.subscription.customer))
    .executeTakeFirst();
  return byCustomer?.user_id ?? null;
}

/** How often the holder may change under us (a transfer each time) before the event is retried later. */
const HOLDER_ATTEMPTS = 3;

/**
 * Finds the user a change belongs to and locks them, in a transfer's order: on PostgreSQL the team
 * they pay for first (a transfer holds it while it moves the subscription), then the user. The
 * holder is read again under the locks: a transfer that committed meanwhile moved it, and the
 * change goes to the new holder.
 */
async function lockHolder(trx: Trx, context: BillingContext, change: Change): Promise<string | null> {
  for (let attempt = 0; attempt < HOLDER_ATTEMPTS; attempt++) {
    const userId = await holderOf(trx, change);
    if (!userId) return null;
    if (context.engine === 'postgres') {
      await trx.selectFrom('teams').select('id').where('billing_user_id', '=', userId).forUpdate().executeTakeFirst();
    }
    if (!(await userExists(trx, context, userId))) return null;
    if ((await holderOf(trx, change)) === userId) return userId;
  }
  throw new Error('billing event: the subscription changed hands while the event was applied');
}

/** The row after the change, or why the change does not apply. */
function decide(
  context: BillingContext,
  userId: string,
  row: SubscriptionsTable | undefined,
  change: Change,
  at: number,
): SubscriptionsTable | 'stale' | 'ignored' | 'refused' {
  const now = context.now();
  if (change.kind === 'payment_failed') {
    if (!row || row.provider_subscription_id !== change.subscriptionId) return 'ignored';
    if (at < row.provider_updated_at || row.status === 'canceled') return 'stale';
    return { ...row, status: 'past_due', provider_updated_at: at, updated_at: now };
  }

  const subscription = change.subscription;
  const item = subscription.items?.data?.[0];
  const plan = item ? context.prices.planOf(item.price.id) : null;
  if (!item || !plan) {
    context.log.warn({ event: 'billing.unknown_price', subscription: subscription.id, price: item?.price.id }, 'subscription with a price we do not sell');
    return 'ignored';
  }
  const status = statusOf(subscription.status);
  if (row) {
    const same = row.provider_subscription_id === subscription.id;
    if (at < row.provider_updated_at) return 'stale';
    if (same && row.status === 'canceled') return 'stale';
    // Stripe sends created (incomplete) and updated (active) within the same second.
    if (same && at === row.provider_updated_at && status === 'incomplete' && row.status !== 'incomplete') return 'stale';
    // The end of an older subscription does not end the one the user has now.
    if (!same && status === 'canceled' && row.status !== 'canceled') return 'ignored';
    // Plan changes of a subscriber go through the subscription they have (the billing portal), so
    // another subscription while that one runs is a second payment: applying it would leave the
    // first one billing with no plan behind it.
    const running = (row.status === 'active' || row.status === 'past_due') && (row.current_period_end ?? 0) > now;
    if (!same && running && row.provider_subscription_id !== null) {
      context.log.error(
        { event: 'billing.second_subscription', userId, current: row.provider_subscription_id, refused: subscription.id },
        'a second subscription was paid while one runs: it was not applied; cancel and refund it with the provider',
      );
      return 'refused';
    }
  }
  const cancelAt = typeof subscription.cancel_at === 'number' ? subscription.cancel_at * 1000 : null;
  const periodEnd = item.current_period_end * 1000;
  const cancelling = subscription.cancel_at_period_end === true || cancelAt !== null;
  const scheduled: PlanId | null = cancelling ? (context.prices.planOf(subscription.metadata?.scheduled_price ?? '') ?? 'free') : null;
  return {
    user_id: userId,
    plan,
    status,
    current_period_start: item.current_period_start * 1000,
    // Cancelling at a set time ends the plan then, even inside the period.
    current_period_end: cancelAt !== null && cancelAt < periodEnd ? cancelAt : periodEnd,
    cancel_at_period_end: cancelling ? 1 : 0,
    scheduled_plan: scheduled,
    provider: context.provider,
    provider_customer_id: idOf(subscription.customer),
    provider_subscription_id: subscription.id,
    provider_updated_at: at,
    updated_at: now,
  };
}

/** Who a change is recorded as in a team's log: the person who made it, or the provider itself. */
export interface ActingPerson {
  person: AuditActor;
  ip: string | null;
}

export interface HandleOptions {
  precondition?: Precondition;
  /** The signed-in person whose action made the event (test mode); provider-driven events have none. */
  actor?: ActingPerson;
}

/** The actor of a change nobody made here: a provider event (a webhook, a period that ended). */
export const providerActor = (provider: BillingContext['provider']): AuditActor => ({ id: null, name: provider === 'stripe' ? 'Stripe (payment provider)' : 'Test-mode payment provider' });

/**
 * Applies one provider event and says what became of it. Throws only when the database fails,
 * which leaves nothing recorded, so the sender's retry is applied.
 */
export async function handleBillingEvent(context: BillingContext, event: BillingEvent, options: HandleOptions = {}): Promise<Outcome> {
  if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) return 'ignored';
  const { db } = context;
  // A redelivery of a handled event needs no call to the provider; the UNIQUE row below is
  // what guarantees it, this only saves the work.
  const seen = await db.selectFrom('billing_events').select('id').where('id', '=', event.id).executeTakeFirst();
  if (seen) return 'duplicate';
  const change = await changeOf(context, event);
  const at = event.created * 1000;

  const apply = () => db.transaction().execute(async (trx) => {
    // First, so concurrent deliveries of this event wait here for the first one's commit and
    // then find its row (PostgreSQL), or run after it (SQLite).
    const inserted = await trx
      .insertInto('billing_events')
      .values({ id: event.id, provider: context.provider, type: event.type, user_id: null, event_at: at, received_at: context.now(), outcome: 'ignored' })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { outcome: 'duplicate' as const, userId: null };

    const userId = change ? await lockHolder(trx, context, change) : null;
    if (!change || !userId) return { outcome: 'ignored' as const, userId };
    // The user's row is locked (PostgreSQL) or the database is (SQLite): the row read here stays
    // as it is until this transaction ends, so a user's changes apply one after another.
    const row = await findSubscription(trx, userId);
    const refuse = async (outcome: Exclude<Outcome, 'applied' | 'duplicate'>) => {
      await trx.updateTable('billing_events').set({ outcome, user_id: userId }).where('id', '=', event.id).execute();
      return { outcome, userId };
    };
    // Before anything else: a test checkout that another payment closed meanwhile was never
    // charged, and is refused as such, not taken for a second subscription.
    if (options.precondition && !(await options.precondition(trx, row))) return refuse('refused');
    const next = decide(context, userId, row, change, at);
    if (typeof next === 'string') return refuse(next);
    // A Team checkout begun before its payer joined a team: applied, it would make their own
    // subscription Team with no team behind it (a person is in one team).
    if (next.plan === 'team' && (await inTeamPaidByAnother(trx, userId))) {
      context.log.error(
        { event: 'billing.team_checkout_in_team', userId, refused: next.provider_subscription_id },
        'a Team subscription was paid by a member of another team: it was not applied; cancel and refund it with the provider',
      );
      return refuse('refused');
    }
    const { user_id: _key, ...fields } = next;
    await trx
      .insertInto('subscriptions')
      .values(next)
      .onConflict((conflict) => conflict.column('user_id').doUpdateSet(fields))
      .execute();
    // A paid Team subscription is a team's (decisions.md, Teams): made here, in the same transaction.
    const now = context.now();
    await recordPlanChange(trx, userId, row, next, { at, now }, options.actor ?? { person: providerActor(context.provider), ip: null });
    if (next.plan === 'team' && (next.status === 'active' || next.status === 'past_due')) await ensureTeamOf(trx, userId, now);
    await trx.updateTable('billing_events').set({ outcome: 'applied', user_id: userId }).where('id', '=', event.id).execute();
    return { outcome: 'applied' as const, userId };
  });
  // A join that committed after the checks above: the whole event is applied again from the
  // start, and then refused as any Team payment of a member is.
  const result = await apply().catch((error: unknown) => {
    if (error instanceof JoinedTeamMeanwhile) return apply();
    throw error;
  });
  context.log.info({ event: 'billing.event', id: event.id, type: event.type, userId: result.userId, outcome: result.outcome }, 'billing event handled');
  return result.outcome;
}

import Stripe from 'stripe';
import type { BillingConfig } from '../config';
import { ApiError } from '../errors';
import type { BillingContext, BillingEvent, SubscriptionObject } from './events';
import type { PaidPlanId } from './prices';
import { returnUrls, type PaymentProvider, type PlanChangeRequest } from './provider';

type StripeSettings = Extract<BillingConfig, { provider: 'stripe' }>;

/** Stripe's default: a signed event older than five minutes is refused (replay protection). */
export const WEBHOOK_TOLERANCE_S = 300;

export interface StripeProvider extends PaymentProvider {
  readonly name: 'stripe';
  /** Checks the signature on the exact bytes received and parses the event; throws if either fails. */
  verifyWebhook(rawBody: Buffer, signature: string, now: number): BillingEvent;
}

/** The SDK client, pointed at `STRIPE_API_BASE` when set (tests run a local fake there). */
export function stripeClient(settings: StripeSettings): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : null;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(settings.secretKey, {
    maxNetworkRetries: 2,
    // Each attempt may take the whole budget; `withinBudget` below cuts the call as a whole.
    timeout: settings.timeoutMs,
    telemetry: false,
    ...(base ? { host: base.hostname, port: base.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
  });
}

/** A Stripe call that took longer than its budget (STRIPE_TIMEOUT_MS, retries included). */
export class StripeTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`Stripe did not answer ${what} within ${ms} ms`);
    this.name = 'StripeTimeoutError';
  }
}

/** The call's answer, or a StripeTimeoutError once `ms` have passed: a Stripe that never answers holds nothing longer. */
export function withinBudget<T>(ms: number, what: string, request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StripeTimeoutError(what, ms)), ms);
  });
  return Promise.race([request, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A provider failure is the provider's, not the user's. Stripe refusing the request (a 4xx: a
 * price or customer it does not know, a key it refuses) is 502 `payment_provider_error`, which
 * retrying will not mend; Stripe not answering (no connection, a 5xx, the time budget spent, its
 * rate limit) is 503; a reused idempotency key is the client's 409.
 */
async function callStripe<T>(context: BillingContext, budgetMs: number, what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await withinBudget(budgetMs, what, request());
  } catch (error) {
    if (error instanceof Stripe.errors.StripeIdempotencyError) {
      throw new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used for a different request.');
    }
    const status = error instanceof Stripe.errors.StripeError ? error.statusCode : undefined;
    if (status !== undefined && status >= 400 && status < 500 && status !== 429) {
      context.log.error({ err: error, call: what, status, stripeCode: (error as Stripe.errors.StripeError).code }, 'Stripe refused a call');
      throw new ApiError(502, 'payment_provider_error', 'The payment provider refused the request. Please try again later or contact support.');
    }
    context.log.error({ err: error, call: what }, 'Stripe call failed');
    throw new ApiError(503, 'payment_provider_unavailable', 'The payment provider cannot be reached right now. Please try again shortly.');
  }
}

export function createStripeProvider(options: {
  settings: StripeSettings;
  publicUrl: string;
  client: Stripe;
  context: BillingContext;
}): StripeProvider {
  const { settings, client, context } = options;
  const call = <T>(what: string, request: () => Promise<T>) => callStripe(context, settings.timeoutMs, what, request);
  const urls = returnUrls(options.publicUrl);

  /** The user's running Stripe subscription, which plan changes go through (the portal). */
  const running = (current: PlanChangeRequest['current']) =>
    current?.provider === 'stripe' && current.provider_subscription_id && current.provider_customer_id && (current.status === 'active' || current.status === 'past_due')
      ? { subscription: current.provider_subscription_id, customer: current.provider_customer_id }
      : null;

  /**
   * A billing-portal session opened on the confirmation of one change: cancel (to Free) or a
   * switch of price. Whether a downgrade waits for the period end is the portal configuration's
   * "schedule at period end" setting (see docs/billing.md).
   */
  const portal = async (request: PlanChangeRequest, live: { subscription: string; customer: string }) => {
    const afterCompletion = { type: 'redirect' as const, redirect: { return_url: urls.manage } };
    let flow: Stripe.BillingPortal.SessionCreateParams.FlowData;
    if (request.plan === 'free') {
      flow = { type: 'subscription_cancel', subscription_cancel: { subscription: live.subscription }, after_completion: afterCompletion };
    } else {
      const subscription = await call('subscriptions.retrieve', () => client.subscriptions.retrieve(live.subscription));
      const item = subscription.items.data[0];
      if (!item) throw new ApiError(409, 'no_subscription_item', 'The subscription has no plan to change.');
      flow = {
        type: 'subscription_update_confirm',
        subscription_update_confirm: {
          subscription: live.subscription,
          items: [{ id: item.id, price: context.prices.priceOf(request.plan as PaidPlanId), quantity: 1 }],
        },
        after_completion: afterCompletion,
      };
    }
    const session = await call('billingPortal.sessions.create', () =>
      client.billingPortal.sessions.create({ customer: live.customer, return_url: urls.manage, flow_data: flow }, { idempotencyKey: request.idempotencyKey }),
    );
    return session.url;
  };

  return {
    name: 'stripe',

    async checkoutUrl(request) {
      // A second subscription would bill twice: a subscriber changes price in the portal.
      const live = running(request.current);
      if (live) return portal(request, live);
      const { user, current } = request;
      const knownCustomer = current?.provider === 'stripe' ? current.provider_customer_id : null;
      const session = await call('checkout.sessions.create', () =>
        client.checkout.sessions.create(
          {
            mode: 'subscription',
            line_items: [{ price: context.prices.priceOf(request.plan as PaidPlanId), quantity: 1 }],
            // Both name our user, so every later event finds them without trusting the browser.
            client_reference_id: user.id,
            subscription_data: { metadata: { user_id: user.id } },
            ...(knownCustomer ? { customer: knownCustomer } : { customer_email: user.email }),
            success_url: urls.success,
            cancel_url: urls.cancel,
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      );
      if (!session.url) throw new ApiError(503, 'payment_provider_unavailable', 'The payment provider did not return a checkout page.');
      return session.url;
    },

    async manageUrl(request) {
      const live = running(request.current);
      if (!live) throw new ApiError(409, 'no_subscription', 'There is no paid subscription to change.');
      return portal(request, live);
    },

    // Stripe announces renewals and period ends with its own events.
    settle: async () => undefined,

    verifyWebhook(rawBody, signature, now) {
      return client.webhooks.constructEvent(rawBody, signature, settings.webhookSecret, WEBHOOK_TOLERANCE_S, undefined, now);
    },

    close: () => undefined,
  };
}

/** The provider's copy of a subscription, for events that only name it (`BillingContext`), within the time budget. */
export function retrieveWith(client: Stripe, budgetMs: number): (id: string) => Promise<SubscriptionObject> {
  return (id) => withinBudget(budgetMs, 'subscriptions.retrieve', client.subscriptions.retrieve(id));
}

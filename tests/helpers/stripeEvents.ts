// Stripe's side of the tests: the configuration, and events signed as Stripe signs them, for a test app.
import crypto from 'node:crypto';
import Stripe from 'stripe';
import type { FastifyInstance } from 'fastify';
import { FakeStripe } from './fakeStripe';
import { useTestApp, type EngineName, type TestContext } from './testApp';

export const SECRET = 'whsec_test_0123456789abcdef';
export const PRICES = { professional: 'price_pro_1234', team: 'price_team_5678' };
export const DAY = 24 * 3600;

export const STRIPE_ENV = {
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_fake',
  STRIPE_WEBHOOK_SECRET: SECRET,
  STRIPE_PRICE_PROFESSIONAL: PRICES.professional,
  STRIPE_PRICE_TEAM: PRICES.team,
};

/** Signs fixtures the way Stripe does (the SDK's own test helper). */
const signer = new Stripe('sk_test_fake');

/** Stripe-shaped objects and signed webhook deliveries to `ctx.app`, at the test clock's time. */
export function stripeWebhooks(ctx: TestContext) {
  const nowS = () => Math.floor(ctx.clock.now() / 1000);

  /** A Stripe subscription object as webhooks and the API carry it (API 2025-03-31 and later). */
  const stripeSubscription = (fields: { id: string; userId?: string; price?: string; status?: string; start?: number; cancelAtPeriodEnd?: boolean; customer?: string }) => {
    const start = fields.start ?? nowS();
    return {
      id: fields.id,
      object: 'subscription',
      customer: fields.customer ?? `cus_${fields.id}`,
      status: fields.status ?? 'active',
      cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
      cancel_at: null,
      canceled_at: null,
      metadata: fields.userId ? { user_id: fields.userId } : {},
      items: {
        object: 'list',
        data: [
          {
            id: `si_${fields.id}`,
            object: 'subscription_item',
            price: { id: fields.price ?? PRICES.professional, object: 'price' },
            current_period_start: start,
            current_period_end: start + 30 * DAY,
          },
        ],
      },
    };
  };

  const stripeEvent = (type: string, object: object, created = nowS(), id = `evt_${crypto.randomUUID()}`) => ({
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });

  /** Stripe sends its events pretty-printed; the signature covers those exact bytes. */
  const deliver = (
    event: object,
    options: { secret?: string; timestamp?: number; body?: (signed: string) => string; signature?: string | null; app?: FastifyInstance } = {},
  ) => {
    const payload = JSON.stringify(event, null, 2);
    const signature =
      options.signature !== undefined
        ? options.signature
        : signer.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? SECRET, timestamp: options.timestamp ?? nowS() });
    return (options.app ?? ctx.app).inject({
      method: 'POST',
      url: '/api/v1/billing/webhook',
      payload: options.body ? options.body(payload) : payload,
      headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === null ? {} : { 'stripe-signature': signature }) },
    });
  };

  return { nowS, stripeSubscription, stripeEvent, deliver };
}

/** A test app on `engine` with `PAYMENT_PROVIDER=stripe`, its Stripe API a local fake. */
export function useStripeTestApp(engine: EngineName): { ctx: TestContext; fake: FakeStripe } {
  const fake = new FakeStripe();
  const env: Record<string, string> = { ...STRIPE_ENV };
  beforeAll(async () => {
    env.STRIPE_API_BASE = await fake.start();
  });
  afterAll(() => fake.close());
  return { ctx: useTestApp(engine, { env }), fake };
}

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import type { DatabaseHandle } from '../db/database';
import type { Clock } from '../domain/clock';
import type { BillingContext } from './events';
import { priceBook, TEST_MODE_PRICES } from './prices';
import type { PaymentProvider } from './provider';
import { createStripeProvider, retrieveWith, stripeClient, type StripeProvider } from './stripe';
import { createTestProvider, type TestProvider } from './testMode';

export interface Billing {
  provider: PaymentProvider;
  /** The event handler's dependencies: the same for webhooks and for the test provider. */
  context: BillingContext;
  /** Set with `PAYMENT_PROVIDER=test`: its pages are served. */
  test: TestProvider | null;
  /** Set with `PAYMENT_PROVIDER=stripe`: its webhook is served. */
  stripe: StripeProvider | null;
}

/** How often the test provider ends and renews periods nobody has looked at. */
const SETTLE_EVERY_MS = 60_000;

export function createBilling(options: { config: Config; database: DatabaseHandle; clock: Clock; log: FastifyBaseLogger }): Billing {
  const { config, database, clock, log } = options;
  const base = { db: database.db, engine: database.engine, now: () => clock.now(), log };
  const settings = config.billing;
  if (settings.provider === 'stripe') {
    const client = stripeClient(settings);
    const context: BillingContext = { ...base, provider: 'stripe', prices: priceBook(settings.prices), retrieveSubscription: retrieveWith(client, settings.timeoutMs) };
    const stripe = createStripeProvider({ settings, publicUrl: config.publicUrl, client, context });
    return { provider: stripe, context, test: null, stripe };
  }
  const context: BillingContext = {
    ...base,
    provider: 'test',
    prices: priceBook(TEST_MODE_PRICES),
    // Test-mode events always carry the whole subscription.
    retrieveSubscription: async (id) => {
      throw new Error(`test mode cannot fetch subscription ${id}`);
    },
  };
  // The pages are served by this server: at the API's address when the API has its own.
  const test = createTestProvider({ context, baseUrl: (config.web.apiBase || config.publicUrl).replace(/\/+$/, ''), settleEveryMs: SETTLE_EVERY_MS });
  return { provider: test, context, test, stripe: null };
}

import type { BillingEvent, InvoiceObject, SubscriptionObject } from './events';

/**
 * Stripe's objects in the shape of any API version. A webhook endpoint receives events in the
 * version it was created with (or the account's), so events written before 2025-03-31 ("basil")
 * still arrive in the old shape: the period on the subscription rather than on its items, and
 * the invoice's subscription at `invoice.subscription` rather than at
 * `invoice.parent.subscription_details.subscription`. Both are read here into the current shape;
 * what neither shape explains is refused whole (`UnreadableEvent`), never stored half-read.
 */

/** An event whose object has neither shape: the webhook answers 400 and logs the API version. */
export class UnreadableEvent extends Error {
  constructor(
    readonly event: BillingEvent,
    readonly missing: string,
  ) {
    super(`${event.type} ${event.id} (API version ${event.api_version ?? 'unknown'}) has no ${missing}`);
    this.name = 'UnreadableEvent';
  }
}

/** A subscription of API versions before 2025-03-31: the period is the subscription's. */
interface LegacyPeriod {
  current_period_start?: number;
  current_period_end?: number;
}

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The subscription with its period on every item, from whichever place the event's version put it. */
export function readSubscription(event: BillingEvent, object: SubscriptionObject): SubscriptionObject {
  const legacy = object as SubscriptionObject & LegacyPeriod;
  const items = object.items?.data;
  // No item: no price to derive a plan from, which the handler already ignores (and logs).
  if (!Array.isArray(items) || items.length === 0) return object;
  const data = items.map((item) => {
    const own = item as Partial<SubscriptionObject['items']['data'][number]>;
    const start = own.current_period_start ?? legacy.current_period_start;
    const end = own.current_period_end ?? legacy.current_period_end;
    if (!isTime(start) || !isTime(end)) throw new UnreadableEvent(event, 'subscription period (current_period_start, current_period_end)');
    return { ...item, current_period_start: start, current_period_end: end };
  });
  return { ...object, items: { ...object.items, data } };
}

/** The subscription an invoice bills, or null for an invoice of no subscription (a one-off). */
export function invoiceSubscription(object: InvoiceObject): string | SubscriptionObject | null {
  const legacy = object as InvoiceObject & { subscription?: string | SubscriptionObject | null };
  return object.parent?.subscription_details?.subscription ?? legacy.subscription ?? null;
}

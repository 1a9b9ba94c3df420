import { findPlan, planName, UNLIMITED } from '../../contract/plans';
import type { SubscriptionInfo } from '../../machines/shared/api';
import { dateFormat, formatNumber } from './formats';

/**
 * How plans and usage read on the signed-in screens: the display rules of product-spec §4 and
 * the constants of §9, in one place.
 */

/** Shown when the subscription has no usage limits (product spec §3 and §9): Free's. */
export const DEFAULT_LIMITS = findPlan('free')!.limits;

/** The warning shows only ABOVE this share of the monthly queries (product spec §9). */
export const USAGE_WARNING_PERCENT = 80;

/** Plan badge colours (product spec §4): professional blue, team purple, any other grey. */
export function planBadgePalette(plan: string): 'blue' | 'purple' | 'gray' {
  if (plan === 'professional') return 'blue';
  if (plan === 'team') return 'purple';
  return 'gray';
}

export function isActive(status: string | undefined): boolean {
  return status === 'active';
}

export interface Limits {
  monthlyQueries: number;
  dailyTokens: number;
}

/** The subscription's limits; each missing one (or no subscription at all) is the spec's default. */
export function limitsOf(subscription: SubscriptionInfo | null): Limits {
  const limits = subscription?.usage_limits;
  const pick = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  return {
    monthlyQueries: pick(limits?.monthly_queries, DEFAULT_LIMITS.monthly_queries),
    dailyTokens: pick(limits?.daily_tokens, DEFAULT_LIMITS.daily_tokens),
  };
}

/** One allowance as a card shows it. */
export interface Meter {
  used: number;
  limit: number;
  /** The plan sets no limit (-1 on the wire): no percentage, no warning. */
  unlimited: boolean;
  /** used ÷ limit × 100, unrounded; null when unlimited. */
  percent: number | null;
  /** The percentage as the user reads it, see `shownPercent`; null when unlimited. */
  shown: number | null;
}

/**
 * A percentage as the user reads it: rounded UP to a whole number. The warning shows only above
 * 80 %, so 80.4 % must not read "80%" next to a warning about exceeding 80 %; rounding up makes
 * every usage above 80 % read at least 81 %, and a warning never understates the usage.
 */
export function shownPercent(percent: number): number {
  return Math.ceil(percent);
}

export function meter(used: number | undefined, limit: number): Meter {
  const count = typeof used === 'number' && Number.isFinite(used) ? used : 0;
  if (limit === UNLIMITED || limit < 0) return { used: count, limit, unlimited: true, percent: null, shown: null };
  // used × 100 ÷ limit rather than used ÷ limit × 100: the same number, without the binary
  // rounding that makes 81 ÷ 100 × 100 = 81.00000000000001 (which would round up to 82).
  const percent = limit === 0 ? (count > 0 ? 100 : 0) : (count * 100) / limit;
  return { used: count, limit, unlimited: false, percent, shown: shownPercent(percent) };
}

/** The monthly-queries warning of product spec §2: strictly above 80 %. */
export function isNearLimit(monthly: Meter): boolean {
  return monthly.percent !== null && monthly.percent > USAGE_WARNING_PERCENT;
}

/** Whether the get-started card shows: the monthly query count is zero or missing. */
export function isNewUser(monthlyQueries: number | undefined | null): boolean {
  return !monthlyQueries;
}

/** A limit as cards show it: "Unlimited" for -1, else the count in the user's locale. */
export function formatLimit(limit: number, unlimitedText: string): string {
  return limit < 0 ? unlimitedText : formatNumber(limit);
}

/** A date in the user's locale, e.g. "December 23, 2026". */
export function formatDate(iso: string): string {
  return dateFormat({ year: 'numeric', month: 'long', day: 'numeric' }).format(new Date(iso));
}

/** The downgrade waiting for the end of the period, if any: the plan's name and the date. */
export function scheduledChange(subscription: SubscriptionInfo | null): { plan: string; date: string } | null {
  if (!subscription?.cancel_at_period_end || !subscription.scheduled_plan || !subscription.current_period_end) return null;
  return { plan: planName(subscription.scheduled_plan), date: formatDate(subscription.current_period_end) };
}

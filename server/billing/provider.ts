import type { PlanId } from '../../contract/plans';
import type { SubscriptionsTable, UsersTable } from '../db/types';

export interface PlanChangeRequest {
  user: Pick<UsersTable, 'id' | 'email'>;
  /** The plan the user asked for. */
  plan: PlanId;
  /** The user's stored subscription, already brought up to date (`settle`). */
  current: SubscriptionsTable | undefined;
  /** Makes a retried request reuse the provider's session instead of opening another. */
  idempotencyKey: string;
}

/** What the subscription routes need of a payment provider (`PAYMENT_PROVIDER`). */
export interface PaymentProvider {
  readonly name: 'test' | 'stripe';
  /** The hosted checkout that buys a dearer plan; the plan changes when the payment event arrives. */
  checkoutUrl(request: PlanChangeRequest): Promise<string>;
  /** The billing-management page where a cheaper plan is scheduled for the period end (or undone). */
  manageUrl(request: PlanChangeRequest): Promise<string>;
  /** Brings the user's stored subscription up to date with time before it is read. */
  settle(userId: string): Promise<void>;
  close(): void;
}

/** Where the browser lands after a hosted checkout or the billing-management page (contracts.md). */
export function returnUrls(publicUrl: string) {
  return {
    success: `${publicUrl}/subscription?checkout=success`,
    cancel: `${publicUrl}/subscription?checkout=cancel`,
    manage: `${publicUrl}/subscription`,
  };
}

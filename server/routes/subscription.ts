import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { findPlan, PLAN_IDS } from '../../contract/plans';
import { findSubscription, findTeamSubscription, planAt, subscriptionView } from '../domain/subscriptions';
import { ApiError } from '../errors';
import { alreadyInTeamToPay, inTeamPaidByAnother } from '../domain/teams';
import { CheckoutSchema, ErrorSchema, SubscriptionSchema, Text } from '../../contract/schemas';

/** Stripe accepts keys of up to 255 characters; ours adds the user and the plan to the client's. */
const MAX_IDEMPOTENCY_KEY = 128;

export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  app.addHook('onRequest', app.authenticate);

  /** The stored subscription after the provider has caught up with time (test mode ends periods). */
  const current = async (userId: string) => {
    await app.billing.settle(userId);
    return findSubscription(db, userId);
  };

  app.get(
    '/subscription/me',
    {
      schema: {
        tags: ['subscription'],
        summary: 'The plan that applies now, its period and its limits',
        security: [{ bearer: [] }],
        response: { 200: SubscriptionSchema, 401: ErrorSchema },
      },
    },
    async (request) => {
      const userId = request.auth!.userId;
      const [own, team] = await Promise.all([current(userId), findTeamSubscription(db, userId)]);
      return subscriptionView(own, app.clock.now(), team);
    },
  );

  app.post(
    '/subscription/checkout',
    {
      schema: {
        tags: ['subscription'],
        summary: 'Start a plan change: a hosted checkout for a dearer plan, the billing-management page for a cheaper one',
        description:
          'The plan changes only when the payment provider confirms it; a downgrade takes effect at current_period_end. ' +
          'An Idempotency-Key header makes a retried request reuse the same checkout.',
        security: [{ bearer: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY })) }),
        body: Type.Object({ plan: Text({ maxLength: 100 }) }, { additionalProperties: false }),
        response: { 200: CheckoutSchema, 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (request) => {
      const user = request.currentUser!;
      const target = findPlan(request.body.plan);
      if (!target) {
        throw new ApiError(400, 'invalid_plan', `Choose one of the plans: ${PLAN_IDS.join(', ')}.`, { field: 'plan' });
      }
      const row = await current(user.id);
      const now = app.clock.now();
      const plan = findPlan(planAt(row, now))!;
      if (target.id === plan.id) throw new ApiError(409, 'already_on_plan', `You are already on the ${plan.name} plan.`);
      if (target.id === 'team' && (await inTeamPaidByAnother(db, user.id))) throw alreadyInTeamToPay();
      const clientKey = request.headers['idempotency-key'];
      const change = {
        user,
        plan: target.id,
        current: row,
        idempotencyKey: `${user.id}:${target.id}:${clientKey ?? crypto.randomUUID()}`,
      };
      const url = target.priceUsd > plan.priceUsd ? await app.billing.checkoutUrl(change) : await app.billing.manageUrl(change);
      request.log.info({ event: 'billing.checkout_started', userId: user.id, from: plan.id, to: target.id }, 'plan change started');
      return { checkout_url: url };
    },
  );
};

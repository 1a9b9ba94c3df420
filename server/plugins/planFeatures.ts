import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { findPlan, planWith, type PlanFeature } from '../../contract/plans';
import { ErrorSchema } from '../../contract/schemas';
import { ApiError } from '../errors';

/**
 * The one place the server checks what a plan includes beyond its limits (decisions.md,
 * "Professional's promises"): a route that needs a feature names it with `requireFeature`, which
 * reads the plan the session check already read for this request (the user's own, or Team while
 * their team's subscription runs), so an upgrade or a downgrade shows on the very next request.
 */

const FEATURE_NAMES: Record<PlanFeature, string> = {
  analytics: 'Advanced usage analytics',
  exports: 'Usage exports',
  custom_functions: 'Custom functions',
};

/** 403 `plan_required`, naming the cheapest plan that includes the feature. */
export function planRequired(feature: PlanFeature, current: string): ApiError {
  const needed = planWith(feature);
  return new ApiError(
    403,
    'plan_required',
    `${FEATURE_NAMES[feature]} come with the ${needed.name} plan; your plan is ${findPlan(current)?.name ?? current}. Upgrade to use them.`,
    { requiredPlan: needed.id },
  );
}

/** A preHandler (after `app.authenticate`) that lets through only a plan that includes `feature`. */
export function requireFeature(feature: PlanFeature) {
  return async (request: FastifyRequest): Promise<void> => {
    const plan = request.currentUser!.plan;
    if (!findPlan(plan)?.includes.includes(feature)) throw planRequired(feature, plan);
  };
}

/** The 403 of a route behind a feature, as the OpenAPI document describes it. */
export const PlanRequiredAnswer = Type.Object(ErrorSchema.properties, {
  description:
    '`plan_required` with `required_plan` when the plan does not include the call; `insufficient_scope` for a credential without its scope; `forbidden` for a team member where the team’s owner or an admin is needed.',
});

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Stripe from 'stripe';
import { handleBillingEvent, type BillingContext, type BillingEvent } from '../billing/events';
import type { StripeProvider } from '../billing/stripe';
import { ApiError } from '../errors';
import { ErrorSchema } from '../../contract/schemas';

/** Stripe's events are a few KiB; an invoice with many lines can pass the API's 64 KiB. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * `POST /billing/webhook`: Stripe's signed events. Any non-2xx answer makes Stripe deliver the
 * event again, so a database failure answers 5xx and the redelivery is applied (once).
 */
export const billingWebhookRoutes: FastifyPluginAsyncTypebox<{ stripe: StripeProvider; context: BillingContext }> = async (app, { stripe, context }) => {
  // The signature covers the exact bytes Stripe sent: in this scope (this route only) the body
  // stays a Buffer, whatever its content type, instead of being parsed and re-serialised.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post(
    '/billing/webhook',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        tags: ['billing'],
        summary: "Stripe's webhook (signed; handled idempotently and in any order)",
        response: {
          200: Type.Object({
            received: Type.Boolean(),
            outcome: Type.Union([Type.Literal('applied'), Type.Literal('duplicate'), Type.Literal('stale'), Type.Literal('ignored'), Type.Literal('refused')]),
          }),
          400: ErrorSchema,
          500: ErrorSchema,
        },
      },
    },
    async (request) => {
      const signature = request.headers['stripe-signature'];
      if (typeof signature !== 'string' || signature === '') {
        throw new ApiError(400, 'missing_signature', 'The Stripe-Signature header is missing.');
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let event: BillingEvent;
      try {
        event = stripe.verifyWebhook(body, signature, app.clock.now());
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
          request.log.warn({ event: 'billing.webhook_rejected', reason: error.message, ip: request.ip }, 'webhook signature rejected');
          throw new ApiError(400, 'invalid_signature', 'The webhook signature does not match the body, or it is older than 5 minutes.');
        }
        throw new ApiError(400, 'invalid_json', 'The webhook body is not a JSON event.');
      }
      return { received: true, outcome: await handleBillingEvent(context, event) };
    },
  );
};

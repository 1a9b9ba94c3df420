import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Stripe from 'stripe';
import { UnreadableEvent } from '../billing/eventShapes';
import { handleBillingEvent, type BillingContext, type BillingEvent } from '../billing/events';
import type { StripeProvider } from '../billing/stripe';
import { ApiError } from '../errors';
import { ErrorSchema } from '../../contract/schemas';

/** Stripe's events are a few KiB; an invoice with many lines can pass the API's 64 KiB. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/** What Stripe sends, for the OpenAPI document; the route reads the raw bytes (the signature covers them). */
const StripeEventSchema = Type.Object(
  {
    id: Type.String({ description: 'The event id (`evt_…`): each is applied once, however often it is delivered.' }),
    object: Type.Literal('event'),
    type: Type.String({
      description:
        'Handled: `checkout.session.completed`, `customer.subscription.created`, `.updated`, `.deleted`, `invoice.paid`, `invoice.payment_failed`; others are answered `ignored`.',
    }),
    created: Type.Integer({ description: 'Seconds since the epoch: an event older than the last one applied is `stale`.' }),
    api_version: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Versions before 2025-03-31 (the period on the subscription, `invoice.subscription`) are read as well as the current shape.',
      }),
    ),
    data: Type.Object({ object: Type.Object({}, { description: 'The checkout session, subscription or invoice.' }) }),
  },
  { description: 'A Stripe event, exactly as Stripe signed it.' },
);

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
      // The schemas below document the call; the body is checked by its signature, not parsed before it.
      validatorCompiler: () => () => true,
      schema: {
        tags: ['billing'],
        summary: "Stripe's webhook (signed; handled idempotently and in any order)",
        consumes: ['application/json'],
        headers: Type.Object({
          'stripe-signature': Type.String({
            description: 'Stripe\'s signature of the exact body bytes (`t=…,v1=…`) with the endpoint\'s signing secret; older than 5 minutes is refused.',
          }),
        }),
        body: StripeEventSchema,
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
      try {
        return { received: true, outcome: await handleBillingEvent(context, event) };
      } catch (error) {
        if (!(error instanceof UnreadableEvent)) throw error;
        // Nothing was recorded: once the endpoint's API version is set right, Stripe's retry is applied.
        request.log.error(
          { event: 'billing.unreadable_event', id: event.id, type: event.type, apiVersion: event.api_version ?? null, missing: error.missing },
          `Stripe event ${event.id} of API version ${event.api_version ?? 'unknown'} could not be read: it has no ${error.missing}; nothing was stored`,
        );
        throw new ApiError(400, 'unreadable_event', `This event (API version ${event.api_version ?? 'unknown'}) could not be read; nothing was stored.`);
      }
    },
  );
};

import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  deletePasskey,
  passkeyAuthenticationOptions,
  passkeyName,
  passkeyRegistrationOptions,
  passkeysOf,
  registerPasskey,
  relyingPartyOf,
  renamePasskey,
  verifyPasskeyAuthentication,
  type PasskeyView,
} from '../domain/passkeys';
import { findUserById } from '../domain/users';
import { deliverLater } from '../mail/mailer';
import { passkeyAddedMail } from '../mail/templates';
import { consume, type Limit } from '../plugins/rateLimit';
import { AuthResponseSchema, ErrorSchema, OpaqueToken } from '../../contract/schemas';
import {
  PasskeyCreationOptionsSchema,
  PasskeyRequestOptionsSchema,
  PasskeySchema,
  PasskeySignInSchema,
  RegisterPasskeySchema,
  RenamePasskeySchema,
} from '../../contract/passkeys';
import { ApiError } from '../errors';
import { completeSignIn } from './auth';
import { mfaChallengeUser } from '../domain/secondFactors';

/** Passkey sign-ins started per address: each stores a challenge, so a flood cannot fill the table. */
export const PASSKEY_OPTIONS_LIMIT: Limit = { what: 'passkey sign-ins', max: 100, windowMs: 15 * 60_000 };
/** Passkeys added per account: plenty for every device one owns. */
export const PASSKEY_REGISTER_LIMIT: Limit = { what: 'passkey registrations', max: 20, windowMs: 60 * 60_000 };
/** What a passkey is called when its name is left empty. */
export const DEFAULT_PASSKEY_NAME = 'Passkey';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const wire = (key: PasskeyView) => ({ id: key.id, name: key.name, created_at: iso(key.created_at)!, last_used_at: iso(key.last_used_at) });
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1024 }) });

/** Managing one's passkeys on the profile: a signed-in web session only. */
export const passkeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  const rp = relyingPartyOf(app.config);
  app.addHook('onRequest', app.authenticate);
  const security = [{ bearer: [] }];

  app.post(
    '/webauthn/register/options',
    {
      schema: {
        tags: ['passkeys'],
        summary: 'Start adding a passkey: the options for the browser (discoverable, user verification required)',
        security,
        response: { 200: PasskeyCreationOptionsSchema, 429: ErrorSchema },
      },
    },
    async (request) => {
      const user = request.currentUser!;
      await consume(app.rateLimits, [[`passkey-register:${user.id}`, PASSKEY_REGISTER_LIMIT]]);
      return passkeyRegistrationOptions(db, rp, user, app.clock.now());
    },
  );

  app.post(
    '/webauthn/register',
    {
      schema: {
        tags: ['passkeys'],
        summary: "Add a passkey: the browser's answer to the options, and a name; mails the account",
        security,
        body: RegisterPasskeySchema,
        response: { 201: PasskeySchema, 400: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const user = request.currentUser!;
      const name = passkeyName(request.body.name, DEFAULT_PASSKEY_NAME);
      const now = app.clock.now();
      const added = await registerPasskey(db, rp, user.id, request.body.credential as RegistrationResponseJSON, name, now);
      // Queued before the answer: someone with the session adding a passkey is what the mail warns of.
      await deliverLater(app.mailer, app.log, passkeyAddedMail(user.email, { name, addedAt: now, profileUrl: `${app.config.publicUrl}/profile` }, app.config.web));
      request.log.info({ event: 'passkey.added', userId: user.id, ip: request.ip }, 'passkey added');
      return reply.status(201).send(wire(added));
    },
  );

  app.get(
    '/webauthn/credentials',
    {
      schema: {
        tags: ['passkeys'],
        summary: "The account's passkeys, oldest first",
        security,
        response: { 200: Type.Object({ credentials: Type.Array(PasskeySchema) }) },
      },
    },
    async (request) => ({ credentials: (await passkeysOf(db, request.auth!.userId)).map(wire) }),
  );

  app.patch(
    '/webauthn/credentials/:id',
    {
      schema: {
        tags: ['passkeys'],
        summary: 'Rename a passkey (1-64 characters, trimmed)',
        security,
        params: Id,
        body: RenamePasskeySchema,
        response: { 200: PasskeySchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (request) => {
      const name = passkeyName(request.body.name, '');
      if (name === '') throw new ApiError(400, 'invalid_input', 'The name is empty.', { field: 'name' });
      return wire(await renamePasskey(db, request.auth!.userId, request.params.id, name));
    },
  );

  app.delete(
    '/webauthn/credentials/:id',
    {
      schema: {
        tags: ['passkeys'],
        summary: 'Delete a passkey: it no longer signs in',
        security,
        params: Id,
        response: { 204: Type.Null(), 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { userId } = request.auth!;
      await deletePasskey(db, userId, request.params.id);
      request.log.info({ event: 'passkey.deleted', userId, ip: request.ip }, 'passkey deleted');
      return reply.status(204).send(null);
    },
  );
};

/** Signing in with a passkey alone (a discoverable credential names its user). */
export const passkeySignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  const rp = relyingPartyOf(app.config);

  app.post(
    '/auth/webauthn/options',
    {
      schema: {
        tags: ['auth'],
        summary: 'Start signing in with a passkey: the options for the browser',
        description:
          'Without a body (or with `{}`): a discoverable sign-in, any passkey of this site. With `{mfa_token}`: the second step of a ' +
          "password sign-in, the account's own passkeys only (401 `mfa_token_invalid` when the step is spent).",
        body: Type.Object({ mfa_token: Type.Optional(OpaqueToken) }, { additionalProperties: false }),
        response: { 200: PasskeyRequestOptionsSchema, 401: ErrorSchema, 429: ErrorSchema },
      },
      // A call without a body (as before there was the second step's) is the discoverable sign-in.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      await consume(app.rateLimits, [[`passkey-options:ip:${request.ip}`, PASSKEY_OPTIONS_LIMIT]]);
      const now = app.clock.now();
      const mfaToken = request.body.mfa_token;
      return passkeyAuthenticationOptions(db, rp, mfaToken ? await mfaChallengeUser(db, mfaToken, now) : null, now);
    },
  );

  app.post(
    '/auth/webauthn',
    {
      schema: {
        tags: ['auth'],
        summary: "Sign in with a passkey: the browser's answer to the options",
        body: PasskeySignInSchema,
        response: { 200: AuthResponseSchema, 400: ErrorSchema, 401: ErrorSchema },
      },
    },
    async (request) => {
      const now = app.clock.now();
      let userId: string;
      try {
        userId = await verifyPasskeyAuthentication(db, rp, request.body.credential as AuthenticationResponseJSON, null, now);
      } catch (error) {
        request.log.warn({ event: 'auth.passkey_failed', ip: request.ip }, 'passkey sign-in failed');
        throw error;
      }
      const user = await findUserById(db, userId);
      if (!user) throw new ApiError(401, 'invalid_passkey', 'This passkey could not be used to sign in.', { field: 'credential' });
      return completeSignIn(app, request, user, 'passkey');
    },
  );
};

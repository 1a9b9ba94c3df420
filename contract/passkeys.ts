import { Type, type Static } from '@sinclair/typebox';
import { DisplayText } from './schemas';

/**
 * The wire shapes of passkeys (WebAuthn, decisions.md "Advanced security"): server/routes/webauthn.ts
 * answers with them and the client reads their static types. Options and credentials are the
 * WebAuthn JSON forms (W3C WebAuthn Level 3, §5.1.8-§5.1.10, "…JSON" types) that
 * @simplewebauthn/browser hands to the browser and back.
 */

/** Bytes in base64url, as the JSON forms carry them. */
const B64 = (description?: string) => Type.String({ minLength: 1, maxLength: 16_384, pattern: '^[A-Za-z0-9_-]+={0,2}$', ...(description ? { description } : {}) });
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 });
const Descriptor = Type.Object({ id: B64(), type: Type.String({ description: '`public-key`' }), transports: Type.Optional(Transports) });

/** POST /webauthn/register/options: what `navigator.credentials.create` is asked. */
export const PasskeyCreationOptionsSchema = Type.Object({
  challenge: B64(),
  rp: Type.Object({ name: Type.String(), id: Type.Optional(Type.String()) }),
  user: Type.Object({ id: B64(), name: Type.String(), displayName: Type.String() }),
  pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String({ description: '`public-key`' }) })),
  timeout: Type.Optional(Type.Integer()),
  excludeCredentials: Type.Optional(Type.Array(Descriptor)),
  authenticatorSelection: Type.Optional(
    Type.Object({
      authenticatorAttachment: Type.Optional(Type.String()),
      requireResidentKey: Type.Optional(Type.Boolean()),
      residentKey: Type.Optional(Type.String()),
      userVerification: Type.Optional(Type.String()),
    }),
  ),
  hints: Type.Optional(Type.Array(Type.String())),
  attestation: Type.Optional(Type.String()),
  extensions: Type.Optional(Type.Object({ credProps: Type.Optional(Type.Boolean()) })),
});

/** POST /auth/webauthn/options: what `navigator.credentials.get` is asked. */
export const PasskeyRequestOptionsSchema = Type.Object({
  challenge: B64(),
  timeout: Type.Optional(Type.Integer()),
  rpId: Type.Optional(Type.String()),
  allowCredentials: Type.Optional(Type.Array(Descriptor, { description: 'Empty for a sign-in by passkey alone: the browser offers the passkeys it holds for this site.' })),
  userVerification: Type.Optional(Type.String()),
  hints: Type.Optional(Type.Array(Type.String())),
});

const ClientExtensionResults = Type.Object({}, { additionalProperties: true });

/** A new passkey as the browser answers `create` (RegistrationResponseJSON). */
export const RegistrationCredentialSchema = Type.Object(
  {
    id: B64(),
    rawId: B64(),
    type: Type.Literal('public-key'),
    response: Type.Object({
      clientDataJSON: B64(),
      attestationObject: B64(),
      authenticatorData: Type.Optional(B64()),
      transports: Type.Optional(Transports),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(B64()),
    }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: ClientExtensionResults,
  },
  { description: 'What @simplewebauthn/browser startRegistration answers.' },
);

/** A passkey's answer to `get` (AuthenticationResponseJSON). */
export const AuthenticationCredentialSchema = Type.Object(
  {
    id: B64(),
    rawId: B64(),
    type: Type.Literal('public-key'),
    response: Type.Object({
      clientDataJSON: B64(),
      authenticatorData: B64(),
      signature: B64(),
      userHandle: Type.Optional(B64()),
    }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: ClientExtensionResults,
  },
  { description: 'What @simplewebauthn/browser startAuthentication answers.' },
);

/** A passkey's name: trimmed, 1-64 characters; an empty one takes the browser's name for the device. */
export const PasskeyName = DisplayText({ maxLength: 200, description: 'Trimmed, at most 64 characters; empty: named after the browser.' });

export const RegisterPasskeySchema = Type.Object({ credential: RegistrationCredentialSchema, name: Type.Optional(PasskeyName) }, { additionalProperties: false });
export const RenamePasskeySchema = Type.Object({ name: DisplayText({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export const PasskeySignInSchema = Type.Object({ credential: AuthenticationCredentialSchema }, { additionalProperties: false });

/** A passkey as GET /webauthn/credentials lists it. */
export const PasskeySchema = Type.Object({
  id: Type.String({ description: 'The credential id, base64url.' }),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Passkey = Static<typeof PasskeySchema>;
export type PasskeyCreationOptions = Static<typeof PasskeyCreationOptionsSchema>;
export type PasskeyRequestOptions = Static<typeof PasskeyRequestOptionsSchema>;
export type RegistrationCredential = Static<typeof RegistrationCredentialSchema>;
export type AuthenticationCredential = Static<typeof AuthenticationCredentialSchema>;

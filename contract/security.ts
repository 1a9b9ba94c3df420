import { Type, type Static } from '@sinclair/typebox';
import { OpaqueToken, Password } from './schemas';

/**
 * The wire shapes of second factors and the team's security policy (decisions.md, "Advanced
 * security"): server/routes/mfa.ts and teams.ts answer with them, the client reads their static types.
 */

const Method = Type.Union([Type.Literal('totp'), Type.Literal('webauthn'), Type.Literal('recovery_code')]);
export type SecondFactorMethod = Static<typeof Method>;

/** A code of an authenticator app: six digits (spaces around are forgiven). */
export const TotpCode = Type.String({ minLength: 1, maxLength: 64, description: 'Six digits from the authenticator app.' });
/** A recovery code as typed: case, spaces and the hyphen do not matter. */
export const RecoveryCode = Type.String({ minLength: 1, maxLength: 64 });

export const TotpSetupSchema = Type.Object(
  {
    secret: Type.String({ description: 'The base32 secret, for typing into an app that cannot scan the code.' }),
    otpauth_url: Type.String({ description: 'The `otpauth://totp/…` URI the QR code carries.' }),
  },
  { $id: 'TotpSetup' },
);
export type TotpSetup = Static<typeof TotpSetupSchema>;

export const RecoveryCodesSchema = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'Ten single-use codes, shown this once.' }) },
  { $id: 'RecoveryCodes' },
);
export type RecoveryCodes = Static<typeof RecoveryCodesSchema>;

export const PasswordConfirmation = Type.Object({ password: Password }, { additionalProperties: false });

/** `GET /mfa`: what the profile shows of the account's second factors. */
export const SecondFactorStatusSchema = Type.Object(
  {
    totp_enabled: Type.Boolean(),
    totp_enabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    recovery_codes_left: Type.Integer({ minimum: 0 }),
    passkeys: Type.Integer({ minimum: 0 }),
  },
  { $id: 'SecondFactorStatus' },
);
export type SecondFactorStatus = Static<typeof SecondFactorStatusSchema>;

/** `POST /auth/login/email` for an account with a second factor: no tokens yet. */
export const MfaRequiredSchema = Type.Object(
  {
    mfa_required: Type.Literal(true),
    mfa_token: Type.String({ description: 'Finishes the sign-in at POST /auth/login/mfa; lives 5 minutes and takes 5 tries.' }),
    methods: Type.Array(Method, { minItems: 1 }),
  },
  { $id: 'MfaRequired' },
);
export type MfaRequired = Static<typeof MfaRequiredSchema>;

export const MfaLoginBody = Type.Object(
  {
    mfa_token: OpaqueToken,
    method: Method,
    code: Type.Optional(RecoveryCode),
    credential: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'A WebAuthn assertion, as @simplewebauthn/browser answers it.' })),
  },
  { additionalProperties: false },
);
export type MfaLogin = Static<typeof MfaLoginBody>;

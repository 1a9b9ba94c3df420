import { Type } from '@sinclair/typebox';

/** The error body every route may answer with (see errors.ts). */
export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      field: Type.Optional(Type.String()),
    }),
  },
  { $id: 'Error' },
);

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    full_name: Type.String(),
    username: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    subscription_plan: Type.Union([Type.Literal('free'), Type.Literal('professional'), Type.Literal('team')]),
  },
  { $id: 'User' },
);

export const TokenPairSchema = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
});

export const AuthResponseSchema = Type.Composite([TokenPairSchema, Type.Object({ user: UserSchema })], {
  $id: 'AuthResponse',
});

export const MessageSchema = Type.Object({ message: Type.String() });

/** Strings that reach a hash or a lookup are bounded, so a huge body cannot make the server work hard. */
export const Email = Type.String({ minLength: 1, maxLength: 320 });
export const Password = Type.String({ minLength: 1, maxLength: 1024 });
export const OpaqueToken = Type.String({ minLength: 1, maxLength: 512 });

import { Type, type StringOptions } from '@sinclair/typebox';

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

/**
 * No text field takes control characters (C0, DEL, C1: PostgreSQL refuses NUL in text, and none of
 * them belongs in a name, an address or a token) nor lone surrogates (they cannot be stored as
 * UTF-8 and come back as replacement characters). The patterns run with Ajv's `u` flag.
 */
export const PLAIN_TEXT = '^[^\\p{Cc}\\p{Cs}]*$';
/**
 * Text shown to other people (a name on screens and in e-mails) also takes no line or paragraph
 * separator, bidi embedding, override, isolate or mark (which can make a name read backwards) and
 * no invisible character (zero-width space, word joiner, invisible operators, BOM). The zero-width
 * (non-)joiners U+200C and U+200D stay: Persian and Indic names and emoji sequences need them.
 */
export const DISPLAY_TEXT = '^[^\\p{Cc}\\p{Cs}\\p{Zl}\\p{Zp}\\u061C\\u200B\\u200E\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]*$';
/** Multi-line text (a prompt) keeps tab, line feed and carriage return. */
export const MULTILINE_TEXT = '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F\\p{Cs}]*$';

/** What the client is told when a pattern above refuses a field (errors.ts). */
export const TEXT_PATTERN_MESSAGES: Record<string, string> = {
  [PLAIN_TEXT]: 'must not contain control characters',
  [DISPLAY_TEXT]: 'must not contain control, invisible or text-direction characters',
  [MULTILINE_TEXT]: 'must not contain control characters other than tabs and line breaks',
};

/** A single-line text field; `maxLength` counts characters (code points), as Ajv does. */
export const Text = (options: StringOptions = {}) => Type.String({ pattern: PLAIN_TEXT, ...options });
export const DisplayText = (options: StringOptions = {}) => Type.String({ pattern: DISPLAY_TEXT, ...options });
export const MultilineText = (options: StringOptions = {}) => Type.String({ pattern: MULTILINE_TEXT, ...options });

/** Strings that reach a hash or a lookup are bounded, so a huge body cannot make the server work hard. */
export const Email = Text({ minLength: 1, maxLength: 320 });
export const Password = Text({ minLength: 1, maxLength: 1024 });
export const OpaqueToken = Text({ minLength: 1, maxLength: 512 });
/** The domain checks the 1-100 characters after trimming and NFC; this only bounds the work. */
export const FullName = DisplayText({ maxLength: 1000 });
export const Username = Text({ maxLength: 1000 });

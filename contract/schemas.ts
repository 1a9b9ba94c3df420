import { Type, type Static, type StringOptions } from '@sinclair/typebox';
import type { PlanId } from './plans';

/**
 * The wire format of the API (decisions.md, "Wire format"): the server declares its routes with
 * these schemas (they generate the OpenAPI document), the client reads their static types. The
 * client imports types only, so TypeBox stays out of the browser bundle.
 */

/** The error body every route may answer with (server/errors.ts); `code` is one of contract/errors.ts. */
export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      field: Type.Optional(Type.String()),
      required_plan: Type.Optional(Type.String({ description: '`plan_required`: the cheapest plan that includes the call.' })),
    }),
  },
  { $id: 'Error' },
);
export type ErrorBody = Static<typeof ErrorSchema>;

// Literal tuples rather than a map over PLAN_IDS: Fastify's type provider (TypeBox 1) infers
// `never` from a union built out of an array. The check below keeps the two lists equal.
export const PlanIdSchema = Type.Union([Type.Literal('free'), Type.Literal('professional'), Type.Literal('team')]);
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const planIdsMatch: Same<Static<typeof PlanIdSchema>, PlanId> = true;
void planIdsMatch;

/** A team member's role (decisions.md, Teams). */
export const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    full_name: Type.String(),
    username: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    email_verified: Type.Boolean({ description: 'The address was confirmed through the link mailed to it (POST /auth/verify-email).' }),
    subscription_plan: PlanIdSchema,
    team_role: Type.Optional(
      Type.Union([RoleSchema, Type.Null()], {
        description: "Only on `GET /users/me`: the caller's role in their team, null when in no team.",
      }),
    ),
    two_factor_required: Type.Optional(
      Type.Boolean({
        description: 'Only on `GET /users/me`: true while the team requires two-step sign-in and the caller has no second factor (most calls answer 403 `two_factor_required`).',
      }),
    ),
  },
  { $id: 'User' },
);
export type User = Static<typeof UserSchema>;

export const TokenPairSchema = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
});

export type TokenPair = Static<typeof TokenPairSchema>;

export const AuthResponseSchema = Type.Composite([TokenPairSchema, Type.Object({ user: UserSchema })], {
  $id: 'AuthResponse',
});
export type AuthResponse = Static<typeof AuthResponseSchema>;

export const MessageSchema = Type.Object({ message: Type.String() });

/** `GET /query/usage`, and the usage after each query. */
export const UsageSchema = Type.Object({
  monthly_queries: Type.Integer({ description: 'Accepted queries this UTC calendar month.' }),
  daily_tokens: Type.Integer({ description: 'Tokens used this UTC day.' }),
  queries_per_minute: Type.Integer({ description: 'Queries in the last 60 seconds.' }),
  processing_time: Type.Number({ description: 'Mean processing time this month in ms (0 if none).' }),
  total_queries: Type.Integer({ description: 'Accepted queries of all time.' }),
});
export type Usage = Static<typeof UsageSchema>;

const FormulaScalarSchema = Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]);

/** A formula an answer shows, as the server's formula engine checked it on the query's data. */
export const FormulaCheckSchema = Type.Object({
  text: Type.String({ description: 'The formula, with its leading `=`.' }),
  valid: Type.Boolean({ description: 'It parsed.' }),
  value: Type.Union([FormulaScalarSchema, Type.Array(Type.Array(FormulaScalarSchema))], {
    description: 'Its value on `data`: a number, text, TRUE/FALSE, or rows of values for an array result; null when it did not evaluate.',
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'A spreadsheet error code (`#DIV/0!`, `#N/A`, `#NAME?`, `#NULL!`, `#NUM!`, `#REF!`, `#VALUE!`, `#ERROR!` when it does not parse), or `unsupported_function`, `volatile_function`, `too_complex`, `range_too_large`; null when it evaluated.',
  }),
  references: Type.Array(Type.String(), { description: 'The ranges it reads, in A1 notation.' }),
  functions: Type.Array(Type.String(), { description: 'The functions it calls.' }),
});
export type FormulaCheck = Static<typeof FormulaCheckSchema>;

/** `GET /query/usage/daily`. */
export const DailyUsageSchema = Type.Object({
  days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), queries: Type.Integer(), tokens: Type.Integer() }), {
    description: 'The last 30 UTC days, oldest first, today last.',
  }),
});
export type DailyUsage = Static<typeof DailyUsageSchema>['days'][number];

const SubscriptionStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('canceled'), Type.Literal('incomplete')]);
const PeriodEndSchema = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const ScheduledPlanSchema = Type.Union([PlanIdSchema, Type.Null()], { description: 'The plan from current_period_end on, when cancel_at_period_end is true.' });

/** A team member's own subscription, which keeps billing while the team's Team plan applies (decisions.md). */
export const OwnSubscriptionSchema = Type.Object(
  {
    plan: PlanIdSchema,
    status: SubscriptionStatusSchema,
    current_period_end: PeriodEndSchema,
    cancel_at_period_end: Type.Boolean(),
    scheduled_plan: ScheduledPlanSchema,
  },
  {
    description:
      "Only when the plan is a team's (a member's Team plan, billed to the team's owner): the member's own subscription, which keeps billing and which POST /subscription/checkout changes.",
  },
);

/** `GET /subscription/me`: unlimited is -1, as in contract/plans.ts. */
export const SubscriptionSchema = Type.Object(
  {
    plan: PlanIdSchema,
    status: SubscriptionStatusSchema,
    current_period_end: PeriodEndSchema,
    cancel_at_period_end: Type.Boolean(),
    scheduled_plan: ScheduledPlanSchema,
    own: Type.Optional(OwnSubscriptionSchema),
    usage_limits: Type.Object({
      monthly_queries: Type.Integer({ description: '-1 means unlimited' }),
      daily_tokens: Type.Integer({ description: '-1 means unlimited' }),
    }),
  },
  { $id: 'Subscription' },
);
export type Subscription = Static<typeof SubscriptionSchema>;
export type OwnSubscription = Static<typeof OwnSubscriptionSchema>;

/** `POST /subscription/checkout`. */
export const CheckoutSchema = Type.Object({ checkout_url: Type.String({ format: 'uri' }) });
export type Checkout = Static<typeof CheckoutSchema>;

/**
 * No text field takes control characters (C0, DEL, C1: PostgreSQL refuses NUL in text, and none of
 * them belongs in a name, an address or a token) nor lone surrogates (they cannot be stored as
 * UTF-8 and come back as replacement characters). The patterns run with Ajv's `u` flag, where the
 * surrogate range matches a lone surrogate only. They are spelled as ranges, never `\p{…}`, so
 * that every reader of the OpenAPI document reads them: ECMA-262 and Python's `re` alike.
 */
const CONTROL = '\\x00-\\x1F\\x7F-\\x9F';
const LONE_SURROGATE = '\\uD800-\\uDFFF';
export const PLAIN_TEXT = `^[^${CONTROL}${LONE_SURROGATE}]*$`;
/**
 * Text shown to other people (a name on screens and in e-mails) also takes no line or paragraph
 * separator, bidi embedding, override, isolate or mark (which can make a name read backwards) and
 * no invisible character (zero-width space, word joiner, invisible operators, BOM). The zero-width
 * (non-)joiners U+200C and U+200D stay: Persian and Indic names and emoji sequences need them.
 */
export const DISPLAY_TEXT = `^[^${CONTROL}${LONE_SURROGATE}\\u2028\\u2029\\u061C\\u200B\\u200E\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]*$`;
/** Multi-line text (a prompt) keeps tab, line feed and carriage return. */
export const MULTILINE_TEXT = `^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F${LONE_SURROGATE}]*$`;

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

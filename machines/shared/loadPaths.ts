/**
 * The calls the signed-in pages load with, spelled once: by the API client (./api.ts), by the
 * charts that start from an early answer (./earlyCalls.ts, `knownAnswer`) and by the page's early
 * calls (src/firstCalls.ts). An early answer is of use only to a call of the same path, so the
 * three read the same constant. The team page's, which depend on the role, are in
 * machines/team/team.calls.ts.
 */
export const LOAD_PATHS = {
  me: '/users/me',
  usage: '/query/usage',
  dailyUsage: '/query/usage/daily',
  subscription: '/subscription/me',
  sessions: '/sessions',
  apiKeys: '/api-keys',
  secondFactors: '/mfa',
  passkeys: '/webauthn/credentials',
  functions: '/functions',
  analytics: '/usage/analytics',
} as const;

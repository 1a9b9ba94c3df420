/**
 * The calls the signed-in pages load with, spelled once: by the API client (./api.ts), by the
 * charts that start from an early answer (./earlyCalls.ts, `knownAnswer`) and by the page's early
 * calls (src/firstCalls.ts). An early answer is of use only to a call of the same path, so the
 * three read the same constant. Which of the team page's it asks depends on the role
 * (machines/team/team.calls.ts).
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
  team: '/teams/me',
  teamMembers: '/teams/me/members',
  teamInvitations: '/teams/me/invitations',
  teamUsage: '/teams/me/usage',
  teamAudit: '/teams/me/audit-log',
} as const;

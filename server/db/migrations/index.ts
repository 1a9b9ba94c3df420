import type { Migration } from 'kysely';
import * as users from './2026-11-22T0100-users';
import * as sessions from './2026-11-22T0200-sessions';
import * as subscriptions from './2026-11-23T0100-subscriptions';
import * as usage from './2026-11-23T0200-usage';
import * as billing from './2026-11-23T0300-billing';
import * as usageClustered from './2026-11-23T0400-usage-clustered';
import * as accountGeneration from './2026-11-23T0500-account-generation';
import * as ledgerByRequest from './2026-11-23T0600-ledger-by-request';
import * as addonCredentials from './2026-11-23T2300-addon-credentials';
import * as teams from './2026-11-24T0100-teams';
import * as retention from './2026-11-24T0200-retention';
import * as answerQueryFunction from './2026-11-24T0300-answer-query-function';
import * as teamBillingFollowsOwner from './2026-11-26T0100-team-billing-follows-owner';
import * as invitationMails from './2026-11-26T1300-invitation-mails';
import * as mailOutbox from './2026-11-26T1300-mail-outbox';
import * as abandonedQueries from './2026-11-26T1500-abandoned-queries';
import * as usageLedgerByUser from './2026-11-26T1500-usage-ledger-by-user';
import * as customFunctions from './2026-11-26T1510-custom-functions';
import * as reserveSettleFunctions from './2026-11-26T1510-reserve-settle-functions';
import * as emailVerification from './2026-11-26T2300-email-verification';
import * as passkeys from './2026-11-26T2310-passkeys';
import * as secondFactors from './2026-11-26T2320-second-factors';
import * as teamSecurityPolicy from './2026-11-26T2330-team-security-policy';
import * as reserveSettleInBatches from './2026-11-27T0900-reserve-settle-in-batches';

/** Every migration, keyed by its dated name; Kysely applies them in name order on both engines. */
export const migrations: Record<string, Migration> = {
  '2026-11-22T0100-users': users,
  '2026-11-22T0200-sessions': sessions,
  '2026-11-23T0100-subscriptions': subscriptions,
  '2026-11-23T0200-usage': usage,
  '2026-11-23T0300-billing': billing,
  '2026-11-23T0400-usage-clustered': usageClustered,
  '2026-11-23T0500-account-generation': accountGeneration,
  '2026-11-23T0600-ledger-by-request': ledgerByRequest,
  '2026-11-23T2300-addon-credentials': addonCredentials,
  '2026-11-24T0100-teams': teams,
  '2026-11-24T0200-retention': retention,
  '2026-11-24T0300-answer-query-function': answerQueryFunction,
  '2026-11-26T0100-team-billing-follows-owner': teamBillingFollowsOwner,
  '2026-11-26T1300-invitation-mails': invitationMails,
  '2026-11-26T1300-mail-outbox': mailOutbox,
  '2026-11-26T1500-abandoned-queries': abandonedQueries,
  '2026-11-26T1500-usage-ledger-by-user': usageLedgerByUser,
  '2026-11-26T1510-custom-functions': customFunctions,
  '2026-11-26T1510-reserve-settle-functions': reserveSettleFunctions,
  '2026-11-26T2300-email-verification': emailVerification,
  '2026-11-26T2310-passkeys': passkeys,
  '2026-11-26T2320-second-factors': secondFactors,
  '2026-11-26T2330-team-security-policy': teamSecurityPolicy,
  '2026-11-27T0900-reserve-settle-in-batches': reserveSettleInBatches,
};

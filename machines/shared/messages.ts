/**
 * What a chart says to the person, named rather than worded. A chart imports no view and none of
 * its texts (docs/architecture.md, "Dependency rules"): it names a text of the message catalogue
 * (src/content/messages.ts) by its section and name, `'auth.loggedOut'`, and the view that shows
 * it resolves the name in the catalogue (src/content/say.ts, which fails to type-check while a
 * name below is missing from the catalogue).
 */

/** A text of the catalogue, by section and name. */
export type MessageKey =
  | 'api.network'
  | `auth.${
      | 'loginFailed'
      | 'invalidUser'
      | 'accountCreated'
      | 'accountCreatedText'
      | 'registrationFailed'
      | 'loggedOut'
      | 'loggedOutText'
      | 'welcomeBack'
      | 'welcomeBackText'
      | 'sessionEnded'
      | 'sessionEndedText'
      | 'loginOther'
      | 'loginUnauthorized'
      | 'loginBadRequest'
      | 'usernameTaken'
      | 'registerConflict'
      | 'registerBadRequest'
      | 'registerOther'
      | 'networkFailure'
      | 'secondStepFailed'
      | 'secondStepExpired'
      | 'invalidCode'}`
  | `register.${'emailRequired' | 'emailInvalid' | 'usernameRequired' | 'usernameInvalid' | 'fullNameRequired' | 'passwordRequired' | 'passwordShort' | 'passwordsMismatch'}`
  | `login.${'emailRequired' | 'passwordRequired'}`
  | `secondStep.${'codeRequired' | 'codeInvalid'}`
  | `profile.${'currentPasswordRequired' | 'passwordShort' | 'updateFailed' | 'error' | 'passwordsMismatch' | 'updated' | 'updatedText' | 'passwordUnchanged'}`
  | `credentials.${'sessionEnded' | 'othersEnded' | 'keyRevoked' | 'sessionEndFailed' | 'keyCreateFailed' | 'keyRevokeFailed' | 'failed' | 'emailUnverified'}`
  // The /verify-email page and the banner's resend (machines/verifyEmail).
  | `verifyEmail.${'missingToken' | 'sent'}`
  | `passkeys.${'added' | 'renamed' | 'deleted' | 'addFailed' | 'renameFailed' | 'deleteFailed' | 'cancelled' | 'exists' | 'notSupported' | 'refused' | 'failed' | 'signInCancelled' | 'signInUnsupported' | 'signInRefused'}`
  | `team.${'actionFailed' | 'renamed' | 'defaultCapSaved' | 'securitySaved' | 'done' | 'emailRequired' | 'emailInvalid' | 'inviteAdminForbidden'}`
  | `security.${'turnedOn' | 'turnedOnText' | 'turnedOff' | 'turnedOffText' | 'codeRequired' | 'codeInvalid' | 'passwordRequired'}`
  | 'invitation.joinedTitle'
  | `link.${'failed' | 'codeNotFound' | 'codeMalformed'}`
  | `subscription.${'checkoutFailed' | 'checkoutFailedText' | 'paymentSucceeded'}`
  | `support.${'authRequired' | 'authRequiredText' | 'submitted' | 'submittedText' | 'failed' | 'failedText'}`
  | `support.validation.${'title' | 'description' | 'email' | 'telephone'}`
  | `usage.${'downloadFailed' | 'exportDone'}`
  | `usage.rangeErrors.${'fromRequired' | 'toRequired' | 'fromAfterTo' | 'toInFuture'}`
  | 'guide.failed'
  // The /functions page (machines/functions, machines/functionEditor).
  | `functions.${'deleted' | 'deleteFailed' | 'saved'}`
  | `functions.validation.${'nameRequired' | 'name' | 'promptRequired' | 'promptLong' | 'promptInput' | 'descriptionLong'}`;

/** The catalogue's sentences that take values, with the values each takes. */
export interface Sentences {
  'api.error': [statusText: string];
  'auth.tooManyAttempts': [seconds: number];
  'link.tooManyCodes': [seconds: number];
  'subscription.paymentSucceededText': [plan: string];
  'team.resent': [email: string];
  'team.revoked': [email: string];
  'team.transferred': [name: string];
  'team.inviteSent': [email: string];
  'invitation.joinedText': [team: string];
  'usage.exportThrottled': [seconds: number];
  'usage.rangeErrors.tooLong': [days: number, max: number];
}

/** The catalogue's sections that word some of the API's error codes (the others keep the server's words). */
export type CodeWords = 'team.errors' | 'invitation.errors' | 'guide.errors' | 'functions.errors';

export type Message =
  | MessageKey
  | { [K in keyof Sentences]: { key: K; values: Sentences[K] } }[keyof Sentences]
  /** The section's words for `code` when it has them, else `otherwise`. */
  | { words: CodeWords; code: string; otherwise: Message }
  /** Several messages, one after the other, a space between them. */
  | { join: readonly Message[] }
  /** Words that are not the catalogue's: the server's own sentence. */
  | { text: string };

/** A sentence of the catalogue with its values, e.g. `sentence('team.inviteSent', email)`. */
export const sentence = <K extends keyof Sentences>(key: K, ...values: Sentences[K]): Message => ({ key, values }) as Message;

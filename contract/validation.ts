/**
 * The field rules both sides apply: the forms check them as the user types (the yup schemas
 * beside the charts in machines/), the server checks them again (server/domain). Lengths count
 * characters (code points), not bytes.
 */

/** Something@something.tld, no spaces: the shape the forms ask for and the server accepts. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** RFC 5321's limit on a forward path, less its angle brackets. */
export const EMAIL_MAX_LENGTH = 254;
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,30}$/;
/** Product spec §9. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
export const FULL_NAME_MAX_LENGTH = 100;

/**
 * The message catalogue's keys for the rules above: a form's section of src/content/messages
 * provides these texts (their wording differs by screen, as the spec has it), and its yup schema
 * reads them through this type, so a rule cannot lose its message.
 */
export type ValidationMessages = Record<
  | 'emailRequired'
  | 'emailInvalid'
  | 'usernameRequired'
  | 'usernameInvalid'
  | 'fullNameRequired'
  | 'passwordRequired'
  | 'passwordShort'
  | 'passwordsMismatch',
  string
>;

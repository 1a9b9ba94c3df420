/**
 * The user code of the add-on's device sign-in, one rule for the server that issues and checks it
 * and the /link page that takes it. RFC 8628 §6.1: consonants only, so no look-alikes (0/O, 1/I/L)
 * and no words; 8 of them, 20^8 codes, shown as XXXX-XXXX.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A user code as the person may type it: any case, with or without the dash and spaces; null when it cannot be one. */
export function normaliseUserCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const char of code) if (!USER_CODE_ALPHABET.includes(char)) return null;
  return code;
}

export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

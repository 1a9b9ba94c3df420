import { ApiRequestError } from './apiError';
import { commonFailure } from './failures';
import type { Message } from './messages';

/**
 * What went wrong in a ceremony, in the person's terms: the browser's refusals come as DOMException
 * names (W3C WebAuthn §5.1.3, §5.1.4.1), which @simplewebauthn/browser keeps as the error's name.
 * `NotAllowedError` is the person closing the prompt, or its timing out; `InvalidStateError` on
 * creation, a passkey of this account already on the device.
 */
export function ceremonyProblem(error: unknown): 'cancelled' | 'exists' | 'unsupported' | null {
  if (error instanceof ApiRequestError || !(error instanceof Error)) return null;
  if (error.name === 'NotAllowedError' || error.name === 'AbortError') return 'cancelled';
  if (error.name === 'InvalidStateError') return 'exists';
  if (error.name === 'NotSupportedError' || error.name === 'SecurityError') return 'unsupported';
  return null;
}

/** A flow's sentences for what can go wrong with a passkey (each flow words them in its own section). */
export interface PasskeyWords {
  cancelled: Message;
  exists: Message;
  unsupported: Message;
  /** The server did not accept the passkey (`invalid_passkey`). */
  refused: Message;
}

/** A failed passkey step's sentence: the ceremony's problem, the shared rules, then the server's words. */
export function passkeyFailureText(error: unknown, words: PasskeyWords): Message {
  const problem = ceremonyProblem(error);
  if (problem) return words[problem];
  if (!(error instanceof ApiRequestError)) return error instanceof Error ? { text: error.message } : words.refused;
  return commonFailure(error) ?? (error.code === 'invalid_passkey' ? words.refused : error.serverMessage ? { text: error.serverMessage } : error.shown);
}

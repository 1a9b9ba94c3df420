import type { AuthenticationCredential, PasskeyCreationOptions, PasskeyRequestOptions, RegistrationCredential } from './api';
import { ApiRequestError } from './api';
import { commonFailure } from './failures';
import type { Message } from './messages';

/**
 * The browser's half of a passkey ceremony, through @simplewebauthn/browser: it turns the server's
 * options into `navigator.credentials.create` / `get` and the answer back into JSON. The library is
 * its own chunk, loaded on the first ceremony: no page pays for it before a passkey is used.
 */
const library = () => import(/* webpackChunkName: "webauthn" */ '@simplewebauthn/browser');

type Library = Awaited<ReturnType<typeof library>>;

/** A stopped chart (the page left, the sign-in dropped) ends the browser's prompt with it. */
function cancelOnAbort(lib: Library, signal: AbortSignal | undefined): () => void {
  const cancel = () => lib.WebAuthnAbortService.cancelCeremony();
  signal?.addEventListener('abort', cancel);
  return () => signal?.removeEventListener('abort', cancel);
}

/** Makes a passkey on this device for the options (the person confirms with their screen lock or key). */
export async function createPasskey(options: PasskeyCreationOptions, signal?: AbortSignal): Promise<RegistrationCredential> {
  const lib = await library();
  const release = cancelOnAbort(lib, signal);
  try {
    return (await lib.startRegistration({ optionsJSON: options as Parameters<Library['startRegistration']>[0]['optionsJSON'] })) as RegistrationCredential;
  } finally {
    release();
  }
}

/** Signs the options' challenge with a passkey the person picks. */
export async function usePasskey(options: PasskeyRequestOptions, signal?: AbortSignal): Promise<AuthenticationCredential> {
  const lib = await library();
  const release = cancelOnAbort(lib, signal);
  try {
    return (await lib.startAuthentication({ optionsJSON: options as Parameters<Library['startAuthentication']>[0]['optionsJSON'] })) as AuthenticationCredential;
  } finally {
    release();
  }
}

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

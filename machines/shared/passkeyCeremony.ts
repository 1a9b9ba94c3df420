import { request, type AuthenticationCredential, type AuthResponse, type PasskeyCreationOptions, type PasskeyRequestOptions, type RegistrationCredential } from './api';

/**
 * The browser's half of a passkey ceremony, through @simplewebauthn/browser: it turns the server's
 * options into `navigator.credentials.create` / `get` and the answer back into JSON. The library is
 * its own chunk, loaded on the first ceremony: no page pays for it before a passkey is used (the
 * sign-in loads this module too, so /login's first scripts carry none of it).
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
export async function signWithPasskey(options: PasskeyRequestOptions, signal?: AbortSignal): Promise<AuthenticationCredential> {
  const lib = await library();
  const release = cancelOnAbort(lib, signal);
  try {
    return (await lib.startAuthentication({ optionsJSON: options as Parameters<Library['startAuthentication']>[0]['optionsJSON'] })) as AuthenticationCredential;
  } finally {
    release();
  }
}

/** "Sign in with a passkey": the server's options, the browser's prompt, then the answer checked (the usual auth response). */
export async function signInWithPasskey(signal?: AbortSignal): Promise<AuthResponse> {
  const options = await request<PasskeyRequestOptions>({ method: 'POST', url: '/auth/webauthn/options', data: {}, signal });
  const credential = await signWithPasskey(options, signal);
  return request<AuthResponse>({ method: 'POST', url: '/auth/webauthn', data: { credential }, signal });
}

/** The second step of a password sign-in with one of the account's passkeys. */
export async function secondStepWithPasskey(mfaToken: string, signal?: AbortSignal): Promise<AuthResponse> {
  const options = await request<PasskeyRequestOptions>({ method: 'POST', url: '/auth/webauthn/options', data: { mfa_token: mfaToken }, signal });
  const credential = await signWithPasskey(options, signal);
  return request<AuthResponse>({ method: 'POST', url: '/auth/login/mfa', data: { mfa_token: mfaToken, method: 'webauthn', credential }, signal });
}

import crypto from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

/**
 * A passkey authenticator in software, for API tests without a browser: it answers WebAuthn
 * options as a platform authenticator with a browser in front of it would (W3C WebAuthn Level 3,
 * §6.1 authenticator data, §6.5.4 the "none" attestation, §8.7 attestation object), signing with
 * an ES256 (P-256) key of node:crypto. Each ceremony can be bent the way an attacker or a broken
 * client would: another origin or relying party, no user verification.
 */

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

interface Held {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: crypto.KeyObject;
  counter: number;
}

export interface Bend {
  /** The page's origin the browser reports (default: the authenticator's). */
  origin?: string;
  /** The relying party whose hash the authenticator data carries (default: the options'). */
  rpId?: string;
  /** Whether the user was verified (default true). */
  userVerified?: boolean;
  /** Another challenge than the options' (a replay of an older one). */
  challenge?: string;
}

const sha256 = (data: Buffer | string) => crypto.createHash('sha256').update(data).digest();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

export class SoftAuthenticator {
  readonly held: Held[] = [];

  constructor(readonly origin: string) {}

  /** Answers `navigator.credentials.create(options)` with a new discoverable ES256 passkey. */
  register(options: PublicKeyCredentialCreationOptionsJSON, bend: Bend = {}): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // COSE_Key (RFC 9052 §7, RFC 9053 §2.1): kty EC2, alg ES256, crv P-256, x, y.
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = crypto.randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const flags = FLAG_UP | FLAG_AT | (bend.userVerified === false ? 0 : FLAG_UV);
    const authData = Buffer.concat([sha256(bend.rpId ?? rpId), Buffer.from([flags]), counterBytes(0), Buffer.alloc(16), idLength, id, Buffer.from(cose)]);
    const attestationObject = isoCBOR.encode(new Map<string, string | Uint8Array | Map<string, string>>([['fmt', 'none'], ['attStmt', new Map<string, string>()], ['authData', authData]]));
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: bend.challenge ?? options.challenge, origin: bend.origin ?? this.origin, crossOrigin: false });
    this.held.push({ id, rpId, userHandle: options.user.id, privateKey, counter: 0 });
    return {
      id: b64(id),
      rawId: b64(id),
      type: 'public-key',
      response: { clientDataJSON: b64(Buffer.from(clientDataJSON)), attestationObject: b64(attestationObject), transports: ['internal'] },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /**
   * A passkey it holds, in the form Chromium's virtual authenticator takes it (DevTools protocol,
   * `WebAuthn.addCredential`: binary fields in base64): so a browser can sign in with a passkey
   * registered here, without a ceremony in the page.
   */
  forBrowser(index = -1) {
    const passkey = this.held.at(index)!;
    return {
      credentialId: passkey.id.toString('base64'),
      isResidentCredential: true,
      rpId: passkey.rpId,
      privateKey: passkey.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      userHandle: Buffer.from(passkey.userHandle, 'base64url').toString('base64'),
      signCount: passkey.counter,
    };
  }

  /**
   * Answers `navigator.credentials.get(options)` with a passkey it holds for the relying party: one
   * the options allow, or (no list) any, as a discoverable sign-in offers. `use` picks one by id.
   */
  authenticate(options: PublicKeyCredentialRequestOptionsJSON, bend: Bend & { use?: string } = {}): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = (options.allowCredentials ?? []).map((c) => c.id);
    const candidates = this.held.filter((h) => h.rpId === rpId && (allowed.length === 0 || allowed.includes(b64(h.id))));
    const passkey = bend.use ? this.held.find((h) => b64(h.id) === bend.use) : candidates.at(-1);
    if (!passkey) throw new Error('NotAllowedError: no passkey for this site');
    passkey.counter += 1;
    const flags = FLAG_UP | (bend.userVerified === false ? 0 : FLAG_UV);
    const authData = Buffer.concat([sha256(bend.rpId ?? rpId), Buffer.from([flags]), counterBytes(passkey.counter)]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: bend.challenge ?? options.challenge, origin: bend.origin ?? this.origin, crossOrigin: false }));
    // ES256 signatures are DER-encoded ECDSA (WebAuthn §6.5.5), node's default for EC keys.
    const signature = crypto.sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey);
    return {
      id: b64(passkey.id),
      rawId: b64(passkey.id),
      type: 'public-key',
      response: { clientDataJSON: b64(clientDataJSON), authenticatorData: b64(authData), signature: b64(signature), userHandle: passkey.userHandle },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}

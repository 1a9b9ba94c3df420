import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { DEVICE_GRANT_TYPE } from '../../server/routes/oauth';
import { bearer } from './testApp';

/** What the add-on sends, form-encoded as RFC 6749 §3.2 has clients send it. */
export function form(app: FastifyInstance, url: string, fields: Record<string, string>, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api/v1${url}`,
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Google-Apps-Script' },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

export interface DeviceCodes {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** The add-on asks for a code pair (RFC 8628 §3.1). */
export async function askForCode(app: FastifyInstance, fields: Record<string, string> = {}, remoteAddress?: string): Promise<DeviceCodes> {
  const res = await form(app, '/oauth/device_authorization', { client_id: 'sheetmind-addon', ...fields }, remoteAddress);
  if (res.statusCode !== 200) throw new Error(`device authorization failed: ${res.statusCode} ${res.body}`);
  return res.json() as DeviceCodes;
}

/** One poll of the token endpoint (RFC 8628 §3.4). */
export function poll(app: FastifyInstance, deviceCode: string, clientId = 'sheetmind-addon') {
  return form(app, '/oauth/token', { grant_type: DEVICE_GRANT_TYPE, device_code: deviceCode, client_id: clientId });
}

/** A signed-in person's call of the approval page. */
export function link(app: FastifyInstance, token: string, action: 'lookup' | 'approve' | 'deny', userCode: string, remoteAddress?: string) {
  return app.inject({
    method: 'POST',
    url: `/api/v1/oauth/device/${action}`,
    payload: { user_code: userCode },
    headers: bearer(token),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** How many answers had each status. */
export function tally(answers: LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.statusCode] = (counts[answer.statusCode] ?? 0) + 1;
  return counts;
}

import { accountApi, ApiRequestError, authApi } from '../../machines/shared/api';
import { tokenStorage } from '../../machines/shared/tokenStorage';
import { ada, installFakeApi } from '../helpers/fakeApi';

/**
 * The HTTP client answers a chart's call with the answer of the same call the page sent early
 * (machines/shared/earlyCalls.ts): only a GET of that address, with the same token, once, and as
 * axios would have answered it, failures too, so a 401 still refreshes and retries.
 */

const early = (url: string, token: string, response: Promise<Response>, { startedAt = Date.now(), uses = 1 } = {}) => {
  response.catch(() => undefined);
  window.sheetmindEarlyCalls ??= new Map();
  window.sheetmindEarlyCalls.set(url, { authorization: `Bearer ${token}`, startedAt, response, uses });
};
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));

let api: ReturnType<typeof installFakeApi>;
beforeEach(() => {
  localStorage.clear();
  window.sheetmindEarlyCalls = new Map();
  tokenStorage.write({ access_token: 'access-1', refresh_token: 'refresh-1' });
  api = installFakeApi({ 'GET /users/me': { status: 200, body: { ...ada, full_name: 'From the server' } } });
});
afterEach(() => api.restore());

describe('a call the page sent early', () => {
  it('answers the chart’s first call to its address with the same token, and the next one goes to the server', async () => {
    early('/api/v1/users/me', 'access-1', json(200, { ...ada, full_name: 'Sent early' }));
    expect((await authApi.me()).full_name).toBe('Sent early');
    expect(api.sent('GET /users/me')).toHaveLength(0);
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(1);
  });

  it('answers as many of the page’s calls as it was sent for, each reading the answer of its own', async () => {
    early('/api/v1/users/me', 'access-1', json(200, { ...ada, full_name: 'Sent early' }), { uses: 2 });
    const [first, second] = await Promise.all([authApi.me(), authApi.me()]);
    expect([first.full_name, second.full_name]).toEqual(['Sent early', 'Sent early']);
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(1);
  });

  it('is not given to a call with another token, nor once it is older than 30 seconds', async () => {
    early('/api/v1/users/me', 'access-0', json(200, { ...ada, full_name: 'Sent early' }));
    expect((await authApi.me()).full_name).toBe('From the server');
    early('/api/v1/users/me', 'access-1', json(200, { ...ada, full_name: 'Sent early' }), { startedAt: Date.now() - 31_000 });
    expect((await authApi.me()).full_name).toBe('From the server');
    expect(api.sent('GET /users/me')).toHaveLength(2);
  });

  it('fails as the chart’s own call would: a 401 with its code, a 429 with its wait, a lost connection', async () => {
    early('/api/v1/users/me', 'access-1', json(401, { error: { code: 'token_expired', message: 'Your session has expired.' } }));
    await expect(authApi.me()).rejects.toMatchObject({ status: 401, code: 'token_expired' });
    early('/api/v1/subscription/me', 'access-1', json(429, { error: { code: 'rate_limited', message: 'Slow down.' } }, { 'retry-after': '7' }));
    await expect(accountApi.subscription()).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 7 });
    early('/api/v1/users/me', 'access-1', Promise.reject(new TypeError('Failed to fetch')));
    const lost = await authApi.me().catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(ApiRequestError);
    expect(lost).toMatchObject({ status: 0 });
  });
});

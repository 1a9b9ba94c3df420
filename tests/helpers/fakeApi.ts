import { AxiosError, AxiosHeaders, type InternalAxiosRequestConfig } from 'axios';
import type { User } from '../../machines/shared/api';
import { http } from '../../machines/shared/http';
import { tokenStorage } from '../../machines/shared/tokenStorage';
import { ada } from './fixtures';

/** A request the app sent, as the fake API saw it. */
export interface SeenRequest {
  route: string;
  body: unknown;
  /** The query string's parameters, as the call gave them. */
  params: unknown;
  authorization: string | null;
}

/** How the fake API answers: a status, a JSON body and headers, or `network` for an unreachable server. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network';
export type Handler = Reply | ((request: SeenRequest) => Reply | Promise<Reply>);

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 429: 'Too Many Requests', 500: 'Internal Server Error' };

/** The app's axios adapter when no server can be reached: every call fails as it does offline. */
export async function offline(config: InternalAxiosRequestConfig): Promise<never> {
  throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
}

/**
 * A fake API behind the app's one axios instance, so the real actors, `withAuthRetry` and the
 * error mapping all run: routes are "METHOD /path" under /api/v1; any other route is a 404.
 */
export function installFakeApi(routes: Record<string, Handler>) {
  const requests: SeenRequest[] = [];
  const original = http.defaults.adapter;
  http.defaults.adapter = async (config: InternalAxiosRequestConfig) => {
    const route = `${(config.method ?? 'get').toUpperCase()} ${config.url}`;
    const headers = AxiosHeaders.from(config.headers);
    const request: SeenRequest = {
      route,
      body: typeof config.data === 'string' ? JSON.parse(config.data) : (config.data ?? null),
      params: config.params ?? null,
      authorization: (headers.get('Authorization') as string | undefined) ?? null,
    };
    requests.push(request);
    const handler = routes[route] ?? { status: 404, body: { error: { code: 'not_found', message: 'Not found' } } };
    const reply = typeof handler === 'function' ? await handler(request) : handler;
    if (reply === 'network') return offline(config);
    const response = {
      data: reply.body ?? '',
      status: reply.status,
      statusText: STATUS_TEXT[reply.status] ?? '',
      headers: reply.headers ?? {},
      config,
    };
    if (reply.status >= 400) throw new AxiosError(`Request failed with status code ${reply.status}`, AxiosError.ERR_BAD_RESPONSE, config, null, response);
    return response;
  };
  return {
    requests,
    /** The requests sent to one route. */
    sent: (route: string) => requests.filter((request) => request.route === route),
    restore: () => {
      http.defaults.adapter = original;
    },
  };
}

export { ada };

/** A stored session and the API that accepts it: the app starts signed in as `user`. */
export function signedInApi(routes: Record<string, Handler>, user: User = ada) {
  tokenStorage.write({ access_token: 'access-1', refresh_token: 'refresh-1' });
  return installFakeApi({ 'GET /users/me': { status: 200, body: user }, ...routes });
}

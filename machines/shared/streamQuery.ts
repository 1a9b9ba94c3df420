import type { ErrorCode } from '../../contract/errors';
import { ApiRequestError, NETWORK_ERROR } from './apiError';
import { readRuntimeConfig } from './runtimeConfig';
import { tokenStorage } from './tokenStorage';

type ErrorData = { error?: { code?: string; message?: string } };

const requestError = (status: number, statusText: string, data: ErrorData | null, retryAfter: string | null = null) =>
  new ApiRequestError(
    statusText || String(status),
    status,
    (data?.error?.code as ErrorCode | undefined) ?? null,
    data?.error?.message ?? null,
    retryAfter !== null && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) : null,
  );

/**
 * `POST /api/v1/query` (or `path`, another call that answers as it does: `/functions/{name}/run`)
 * answered as server-sent events (docs/metering.md): `onDelta` sees the answer
 * as the model writes it, and the call resolves with the `done` event's answer object. Fails with
 * an ApiRequestError like every other call: the HTTP error before the first byte, the `error`
 * event after it, or the network one when the stream breaks off. With fetch, not the HTTP client,
 * since only fetch reads a body as it arrives; an abort (the signal) is rethrown as it is.
 */
export async function streamQuery<T>(
  body: object,
  { signal, onDelta, path = '/query' }: { signal?: AbortSignal; onDelta: (text: string) => void; path?: string },
): Promise<T> {
  const { accessToken } = tokenStorage.read();
  let response: Response;
  try {
    response = await fetch(`${readRuntimeConfig().apiBase}/api/v1${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}) },
      body: JSON.stringify(body),
      credentials: 'omit',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiRequestError(NETWORK_ERROR, 0);
  }
  if (!response.ok || !response.body) {
    const data = (await response.json().catch(() => null)) as ErrorData | null;
    throw requestError(response.status, response.statusText, data, response.headers.get('retry-after'));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += value;
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const field = (name: string) => block.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
        const event = field('event');
        const data = JSON.parse(field('data') || 'null') as unknown;
        if (event === 'delta') onDelta((data as { text: string }).text);
        else if (event === 'done') return data as T;
        else if (event === 'error') throw requestError(response.status, response.statusText, data as ErrorData);
      }
    }
  } catch (error) {
    if (signal?.aborted || error instanceof ApiRequestError) throw error;
  }
  // The stream ended without its answer: the connection broke off.
  throw new ApiRequestError(NETWORK_ERROR, 0);
}

import axios, { AxiosError, AxiosHeaders, type AxiosRequestConfig, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import type { ErrorCode } from '../../contract/errors';
import { ApiRequestError, NETWORK_ERROR } from './apiError';
import { anyEarlyCalls, takeEarlyCall } from './earlyCalls';
import { readRuntimeConfig } from './runtimeConfig';
import { tokenStorage } from './tokenStorage';

/** The one axios instance: JSON to the configured API base, never cookies. */
export const http = axios.create({
  baseURL: `${readRuntimeConfig().apiBase}/api/v1`,
  headers: { 'Content-Type': 'application/json' },
  withCredentials: false,
  timeout: 20_000,
});

/** An early call's answer (machines/shared/earlyCalls.ts) as axios would have given the chart its own. */
async function answerOf(early: Promise<Response>, config: InternalAxiosRequestConfig): Promise<AxiosResponse> {
  let res: Response;
  try {
    res = await early;
  } catch {
    throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
  }
  const response: AxiosResponse = {
    data: await res.text(),
    status: res.status,
    statusText: res.statusText,
    headers: new AxiosHeaders(Object.fromEntries(res.headers.entries())),
    config,
  };
  if (!config.validateStatus || config.validateStatus(res.status)) return response;
  const code = res.status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST;
  throw new AxiosError(`Request failed with status code ${res.status}`, code, config, undefined, response);
}

// The interceptor attaches the stored access token, and answers a call the page sent early with
// that answer; refresh-and-retry lives in the auth chart.
http.interceptors.request.use((config) => {
  const { accessToken } = tokenStorage.read();
  if (accessToken && !config.headers.has('Authorization')) config.headers.set('Authorization', `Bearer ${accessToken}`);
  const authorization = config.headers.get('Authorization');
  if (anyEarlyCalls() && (config.method ?? 'get').toLowerCase() === 'get' && typeof authorization === 'string') {
    const early = takeEarlyCall(http.getUri(config), authorization);
    if (early) config.adapter = (request) => answerOf(early, request);
  }
  return config;
});

/** The error body of an answer; a call that asked for text (a CSV, a file) gets it unparsed. */
type ErrorBody = { error?: { code?: string; message?: string } };
function errorBody(data: unknown): ErrorBody {
  let body = data;
  try {
    if (typeof data === 'string') body = JSON.parse(data);
  } catch {
    body = null;
  }
  return body && typeof body === 'object' ? (body as ErrorBody) : {};
}

function toRequestError(error: unknown): ApiRequestError {
  if (error instanceof ApiRequestError) return error;
  if (error instanceof AxiosError && error.response) {
    const { status, statusText, data, headers } = error.response;
    const body = errorBody(data);
    const retryAfter = Number(headers['retry-after']);
    return new ApiRequestError(
      statusText || String(status),
      status,
      (body.error?.code as ErrorCode | undefined) ?? null,
      body.error?.message ?? null,
      Number.isFinite(retryAfter) ? retryAfter : null,
    );
  }
  if (axios.isCancel(error)) throw error;
  return new ApiRequestError(NETWORK_ERROR, 0);
}

/** Sends one request through the axios instance; any failure becomes an ApiRequestError. */
export async function send<T>(config: AxiosRequestConfig): Promise<T> {
  try {
    const response = await http.request<T>(config);
    return response.data;
  } catch (error) {
    throw toRequestError(error);
  }
}

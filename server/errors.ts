import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../contract/errors';
import { TEXT_PATTERN_MESSAGES, type ErrorBody } from '../contract/schemas';

/** An expected failure with its HTTP status and stable snake_case code. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: { field?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The one error body the API ever sends: `{"error": {"code", "message"}}`, plus the field when one is at fault. */
export function errorBody(code: ErrorCode, message: string, field?: string): ErrorBody {
  return { error: field ? { code, message, field } : { code, message } };
}

// Fastify's own client errors, mapped to our codes and plain messages.
const FASTIFY_CODES: Record<string, [number, ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is too large.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Send the request body as application/json.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_request', 'The Content-Length header does not match the body.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'The request body is empty; send a JSON object.'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The request body is not valid JSON.'],
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function fieldOf(error: FastifyError): string | undefined {
  const first = error.validation?.[0];
  if (!first) return undefined;
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  const pathParts = first.instancePath.split('/').filter(Boolean);
  if (params.missingProperty) pathParts.push(params.missingProperty);
  if (params.additionalProperty) pathParts.push(params.additionalProperty);
  return pathParts.join('.') || undefined;
}

export function validationMessage(error: FastifyError, field: string | undefined): string {
  const first = error.validation?.[0];
  const params = (first?.params ?? {}) as { additionalProperty?: string };
  if (params.additionalProperty) return `Unknown field "${params.additionalProperty}".`;
  if (first?.keyword === 'required') return `The field "${field}" is required.`;
  const where = field ? `The field "${field}"` : `The ${error.validationContext ?? 'request'}`;
  // Ajv would quote the regular expression; say what it refuses instead.
  const textRule = first?.keyword === 'pattern' ? TEXT_PATTERN_MESSAGES[(first.params as { pattern: string }).pattern] : undefined;
  return `${where} ${textRule ?? first?.message ?? 'is invalid'}.`;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleError);
}

/** The API's one error handler; a scope with its own error shape (OAuth's) hands it what it does not answer itself. */
export function handleError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
    return reply.status(error.statusCode).send(errorBody(error.code, error.message, error.extra.field));
  }
  if (error.validation) {
    const field = fieldOf(error);
    return reply.status(400).send(errorBody('invalid_input', validationMessage(error, field), field));
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return reply.status(known[0]).send(errorBody(known[1], known[2]));
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return reply.status(status).send(errorBody(STATUS_CODES[status] ?? 'invalid_request', error.message));
  }
  // Anything else is our fault: log it whole, answer without a stack, SQL or internals.
  request.log.error({ err: error }, 'unhandled error');
  const down = status === 503;
  return reply
    .status(down ? 503 : 500)
    .send(
      down
        ? errorBody('service_unavailable', 'The service is temporarily unavailable. Please try again shortly.')
        : errorBody('internal_error', 'Something went wrong on our side. Please try again.'),
    );
}

/**
 * An error answer written straight to the socket, for the layers below Fastify (a malformed
 * request, a timed-out or over-limit connection): the same shape as every other error.
 */
export function rawErrorResponse(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): string {
  const body = JSON.stringify(errorBody(code, message));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`
  );
}

/** Node's parser and timeouts report here (`clientError`) before any request object exists. */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'client error');
  let response: string;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    response = rawErrorResponse(408, 'request_timeout', 'The request took too long to arrive; send it again.');
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    response = rawErrorResponse(431, 'headers_too_large', 'The request headers are too large.');
  } else {
    response = rawErrorResponse(400, 'invalid_request', 'The request is not valid HTTP (its body may be longer than its Content-Length).');
  }
  // A response already under way cannot be followed by another on the same connection.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(response);
  socket.destroy();
}

/** Fastify's router errors (a malformed URL), which would otherwise bypass the error handler. */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send(errorBody('uri_too_long', 'The request address is too long.'));
  } else if (error.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send(errorBody('invalid_request', 'The request address is not valid.'));
  } else {
    void reply.status(500).send(errorBody('internal_error', 'Something went wrong on our side. Please try again.'));
  }
}

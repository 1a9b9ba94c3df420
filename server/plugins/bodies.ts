import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/** Whether the route takes a body at all (a body schema); logout, for one, takes none. */
function takesBody(request: FastifyRequest): boolean {
  return request.routeOptions.schema?.body !== undefined;
}

/**
 * JSON is the only body the API reads. A call that takes no body ignores an empty one whatever its
 * Content-Type says: clients (the spec's among them) send `application/json` on every call, and
 * refusing an empty logout would leave the session alive. A route that needs a body still answers
 * an empty one with a 400, and anything but JSON with a 415.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  // Fastify's own parser, so prototype-poisoning keys are refused as before.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && !takesBody(request)) return done(null, undefined);
    parseJson(request, body as string, done);
  });
  // Any other type: only an empty body of a call that takes none gets through, unread.
  app.addContentTypeParser('*', (request, _payload, done) => {
    const empty = request.headers['content-length'] === '0' && request.headers['transfer-encoding'] === undefined;
    if (empty && !takesBody(request)) return done(null, undefined);
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined);
  });
}

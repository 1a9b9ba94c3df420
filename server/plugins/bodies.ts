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
  // Any other type, or none: only an empty body of a call that takes none gets through, unread. A
  // chunked body's length is known only at its end: it is empty when it ends before any byte comes
  // (the first byte refuses it, and nothing more is read).
  app.addContentTypeParser('*', (request, payload, done) => {
    const refuse = () => done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined);
    if (takesBody(request) || (request.headers['content-length'] ?? '0') !== '0') return refuse();
    if (request.headers['transfer-encoding'] === undefined) return done(null, undefined);
    let answered = false;
    const answer = (empty: boolean) => {
      if (answered) return;
      answered = true;
      payload.removeAllListeners('data');
      if (empty) done(null, undefined);
      else refuse();
    };
    payload.on('data', () => answer(false));
    payload.once('end', () => answer(true));
    payload.once('error', (error: Error) => {
      if (!answered) {
        answered = true;
        done(error, undefined);
      }
    });
  });
}

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { rawErrorResponse } from '../errors';

const REFUSAL = rawErrorResponse(503, 'too_many_connections', 'The server has too many open connections. Please try again shortly.');

/**
 * Caps the connections one process holds, so clients that open many (and hold them, however
 * slowly they send) cannot use up its file descriptors and lock every other client out. One over
 * the cap is answered 503 in the product's error shape and closed at once, without being handed to
 * the HTTP server, so it costs nothing more. (`server.maxConnections` would only drop it silently.)
 */
export function limitConnections(server: Server, max: number, log: FastifyBaseLogger): void {
  let open = 0;
  // The HTTP server's own listener (and any other) sees only the connections under the cap.
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      log.warn({ event: 'server.connection_refused', open, max }, 'too many open connections: refused one');
      socket.on('error', () => undefined);
      // Read and drop what the client sends: closing with unread data would reset the connection
      // before the client reads the answer.
      socket.resume();
      socket.end(REFUSAL);
      // A client that never reads its answer does not keep the descriptor either.
      socket.setTimeout(1000, () => socket.destroy());
      return;
    }
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
    for (const listener of listeners) listener.call(server, socket);
  });
}

import { Worker } from 'node:worker_threads';
import { errorBody } from './errors';
import { API_PREFIX } from './plugins/openapi';
import { STALE_AFTER_MS, type HealthBody, type InstanceHealth } from './routes/health';

/**
 * The liveness check on a port of its own (`HEALTH_PORT`), answered by a thread of its own.
 *
 * `GET /api/v1/health` on the app's port answers from memory, but on the app's one event loop: under
 * thousands of queries in flight or streaming, a check waits behind every callback ahead of it
 * (p99 60 to 230 ms in `npm run bench:slow`), and a load balancer whose check times out takes a
 * busy instance for a dead one. On this port the same answer comes from a worker thread whose loop
 * does nothing else. The app's thread sends it the answer every `HEARTBEAT_MS`; when none came for
 * `STALLED_AFTER_MS` the app's loop is stuck (not merely busy), and the thread answers 503 with
 * `status: "degraded"`, so a stuck instance is still seen as one. A check that finds the database's
 * state older than 5 s asks the app's thread for a fresh probe, as `GET /health` does, and does not
 * wait for it. Only `GET` and `HEAD /api/v1/health` are answered; anything else is a 404.
 *
 * Invariants: the answer's body and headers are the app port's (`headers` are the API's); the
 * thread never touches the database; `close` stops listening and ends the thread's connections.
 */

/** How often the app's thread sends the thread its answer. */
const HEARTBEAT_MS = 500;
/** How long without an answer from the app's thread before the thread calls the app stuck. */
export const STALLED_AFTER_MS = 5_000;
/** A health check needs few connections: more are refused by the thread's server. */
const MAX_CONNECTIONS = 100;

export interface HealthPortOptions {
  host: string;
  port: number;
  /** The API's own headers (`apiSecurityHeaders`). */
  headers: Record<string, string>;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Where a failure of the thread after it started listening is told (the app's log); before, the promise fails. */
  onError?: (message: string) => void;
}

export interface HealthPort {
  /** The port it listens on (the one asked for, or the system's pick for 0). */
  port: number;
  close(): Promise<void>;
}

interface Heartbeat {
  body: HealthBody;
  probedAt: number;
  at: number;
}

/** The thread's code: plain JavaScript, so it runs the same under tsx, jest and a build. */
const HEALTH_THREAD = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { host, port, path, headers, notFound, staleAfterMs, stalledAfterMs, maxConnections, timeouts } = workerData;
let last = workerData.heartbeat;
let askedAt = 0;
const server = http.createServer(timeouts, (request, response) => {
  const now = Date.now();
  let status = 200;
  let body;
  if (request.url.split('?')[0] === path && (request.method === 'GET' || request.method === 'HEAD')) {
    if (now - last.at > stalledAfterMs) {
      status = 503;
      body = JSON.stringify({ ...last.body, status: 'degraded' });
    } else {
      body = JSON.stringify(last.body);
    }
    if (now - last.probedAt > staleAfterMs && now - askedAt > staleAfterMs) {
      askedAt = now;
      parentPort.postMessage({ refresh: true });
    }
  } else {
    status = 404;
    body = notFound;
  }
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(request.method === 'HEAD' ? undefined : body);
});
server.maxConnections = maxConnections;
server.on('error', (error) => parentPort.postMessage({ error: (error.code ? error.code + ': ' : '') + error.message }));
server.listen(port, host, () => parentPort.postMessage({ listening: server.address().port }));
parentPort.on('message', (message) => {
  if (message.heartbeat) last = message.heartbeat;
  if (message.close) {
    server.close(() => parentPort.close());
    server.closeAllConnections();
  }
});
`;

export function startHealthPort(health: InstanceHealth, options: HealthPortOptions): Promise<HealthPort> {
  const heartbeat = (): Heartbeat => ({ body: health.answer(), probedAt: health.probedAt(), at: Date.now() });
  const worker = new Worker(HEALTH_THREAD, {
    eval: true,
    workerData: {
      host: options.host,
      port: options.port,
      path: `${API_PREFIX}/health`,
      headers: options.headers,
      notFound: JSON.stringify(errorBody('not_found', `This port answers GET ${API_PREFIX}/health only.`)),
      staleAfterMs: STALE_AFTER_MS,
      stalledAfterMs: STALLED_AFTER_MS,
      maxConnections: MAX_CONNECTIONS,
      timeouts: {
        keepAliveTimeout: options.keepAliveTimeoutMs,
        headersTimeout: options.headersTimeoutMs,
        requestTimeout: options.requestTimeoutMs,
      },
      heartbeat: heartbeat(),
    },
  });
  // A timer, not a loop of its own: when the app's loop is stuck, so are the heartbeats, which is the point.
  const timer = setInterval(() => worker.postMessage({ heartbeat: heartbeat() }), HEARTBEAT_MS);
  timer.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const close = async () => {
    clearInterval(timer);
    worker.postMessage({ close: true });
    await exited;
  };
  let started = false;
  return new Promise((resolve, reject) => {
    worker.on('message', (message: { listening?: number; error?: string; refresh?: boolean }) => {
      if (message.listening !== undefined) {
        started = true;
        resolve({ port: message.listening, close });
      } else if (message.error) {
        clearInterval(timer);
        if (started) options.onError?.(message.error);
        void worker.terminate();
        reject(new Error(message.error));
      } else if (message.refresh) {
        void health.probe().finally(() => worker.postMessage({ heartbeat: heartbeat() }));
      }
    });
    worker.once('error', (error) => {
      clearInterval(timer);
      if (started) options.onError?.(error.message);
      reject(error);
    });
  });
}

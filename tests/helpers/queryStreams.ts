import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadConfig } from '../../server/config';
import type { DatabaseHandle } from '../../server/db/database';
import type { FakeOpenAi } from './fakeAi';
import { appOnSameDatabase, bearer, type TestContext } from './testApp';

/** Queries answered as they come (issue #34): a real connection to drop, and the events of a streamed answer. */

/** The events of a server-sent event stream, in order, with their data parsed. */
export function sseEvents(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const field = (name: string) => block.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
      return { event: field('event'), data: JSON.parse(field('data')) as unknown };
    });
}

/** A POST /query (or another path that answers as it does) on a real connection, which the test can drop at any moment. */
export function openQuery(port: number, token: string, body: object, headers: Record<string, string> = {}, path = '/api/v1/query') {
  const payload = JSON.stringify(body);
  let socket: Socket | undefined;
  let text = '';
  let wake = () => undefined as void;
  const request = http.request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    agent: false,
    headers: { ...bearer(token), 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
  });
  request.on('socket', (s) => (socket = s));
  request.on('error', () => undefined);
  const response = new Promise<{ status: number; text: string }>((resolve) => {
    request.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (piece: string) => {
        text += piece;
        wake();
      });
      res.on('error', () => undefined);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
  });
  request.end(payload);
  return {
    response,
    /** Resolves once the body so far contains `part`. */
    sees: (part: string) =>
      new Promise<void>((resolve) => {
        wake = () => {
          if (text.includes(part)) resolve();
        };
        wake();
      }),
    /** Drops the connection, as a closed tab or a client that gave up does. */
    leave: () => {
      request.destroy();
      socket?.destroy();
    },
  };
}

export async function listeningApp(ctx: TestContext, fake: FakeOpenAi, database: DatabaseHandle = ctx.app.database) {
  const { ai } = loadConfig({ LLM_BASE_URL: fake.baseUrl, LLM_MODEL: 'fake-model', LLM_TIMEOUT_MS: '10000', LLM_MAX_TOKENS: '300' });
  const app = await appOnSameDatabase(ctx, { config: { ai }, database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port };
}


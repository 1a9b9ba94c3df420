import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { PlanId } from '../../contract/plans';
import type { AiProvider } from '../../server/ai/provider';
import type { Database } from '../../server/db/types';

/**
 * What the fake endpoint does with one request. `answer` is sent as a plain completion, or as
 * server-sent chunks (one a word) when the request asks `stream: true`, at once or, with `hold`,
 * once `release()` is called; `stream` sends its `parts` as chunks, then with `hold` holds the rest
 * (the usage chunk and `[DONE]`) until `release()`; with `failAfter` it ends with a chunk that
 * cannot be read instead.
 */
export type FakeBehaviour =
  | { kind: 'answer'; content?: string; usage?: { prompt_tokens: number; completion_tokens: number } | null; hold?: boolean }
  | { kind: 'stream'; parts: string[]; hold?: boolean; usage?: { prompt_tokens: number; completion_tokens: number } | null; failAfter?: boolean }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'hang' }
  | { kind: 'malformed' };

export interface ChatRequest {
  headers: http.IncomingHttpHeaders;
  body: { model: string; max_tokens: number; stream?: boolean; messages: Array<{ role: string; content: string }> };
}

export interface FakeOpenAiOptions {
  /**
   * Milliseconds a model takes to answer: a plain answer comes after them, a streamed one is
   * written over them (a piece at even steps); 0 by default. A user message holding
   * `[answer in N ms]` takes N instead (a bench's way to vary the model's time per query).
   */
  delayMs?: number;
  /** Keep every request in `requests` (tests); a bench sends too many to keep. */
  keepRequests?: boolean;
  /** The share of requests answered 500 when no behaviour is scripted, spread evenly (0.3: 3 in every 10). */
  failing?: number;
}

export interface FakeOpenAi {
  /** The base URL to configure as LLM_BASE_URL. */
  baseUrl: string;
  requests: ChatRequest[];
  /** Requests received, and those whose client closed the connection before the answer ended. */
  counts: { received: number; aborted: number; open: number };
  /** Behaviours for the next requests, in order; after them every request is answered. */
  script(...behaviours: FakeBehaviour[]): void;
  /** Resolves once `received` reaches n. */
  received(n: number): Promise<void>;
  /** Resolves once `aborted` reaches n. */
  aborted(n: number): Promise<void>;
  /** Lets the held streams end. */
  release(): void;
  close(): Promise<void>;
}

const chunk = (delta: object, usage?: object | null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: usage ? [] : [{ index: 0, delta, finish_reason: null }], ...(usage ? { usage } : {}) })}\n\n`;

const withTotal = (usage: { prompt_tokens: number; completion_tokens: number }) => ({ ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens });

/**
 * A local OpenAI-compatible chat-completions endpoint. By default it answers by echoing the
 * user's message, and its error bodies echo it too, as real providers' sometimes do: whatever the
 * server does with a provider's answer or error, the test can see where the prompt went.
 */
export async function startFakeOpenAi({ delayMs = 0, keepRequests = true, failing = 0 }: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const requests: ChatRequest[] = [];
  const counts = { received: 0, aborted: 0, open: 0 };
  let queue: FakeBehaviour[] = [];
  let released = false;
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const wake of [...waiters]) wake();
  };
  const until = (ready: () => boolean) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        if (!ready()) return;
        waiters.delete(wake);
        resolve();
      };
      waiters.add(wake);
      wake();
    });
  const held = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (piece: Buffer) => chunks.push(piece));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      const n = counts.received;
      counts.received += 1;
      counts.open += 1;
      res.once('close', () => {
        counts.open -= 1;
        if (!res.writableFinished) counts.aborted += 1;
        changed();
      });
      if (keepRequests) requests.push({ headers: req.headers, body });
      changed();
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const asked = /\[answer in (\d+) ms\]/.exec(user);
      const delay = asked ? Number(asked[1]) : delayMs;
      const fails = failing > 0 && Math.floor((n + 1) * failing) > Math.floor(n * failing);
      const behaviour = queue.shift() ?? (fails ? { kind: 'status', status: 500 } : { kind: 'answer' });
      const respond = (behaviour: FakeBehaviour) => {
        if (res.destroyed) return;
        switch (behaviour.kind) {
          case 'hang':
            return;
          case 'malformed':
            res.writeHead(200, { 'content-type': 'application/json' }).end(`{"choices": [{"message": ${JSON.stringify(user)}`);
            return;
          case 'status':
            res
              .writeHead(behaviour.status, { 'content-type': 'application/json', ...(behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {}) })
              .end(JSON.stringify({ error: { message: `cannot process: ${user}` } }));
            return;
          case 'stream':
            return stream(behaviour.parts, behaviour.usage, behaviour.hold ?? false, behaviour.failAfter ?? false);
          case 'answer': {
            if (behaviour.hold && !released) {
              held.add(() => respond({ ...behaviour, hold: false }));
              return;
            }
            const usage = behaviour.usage === undefined ? { prompt_tokens: 42, completion_tokens: 7 } : behaviour.usage;
            const content = behaviour.content ?? `You said: ${user}`;
            if (body.stream) return stream(content.split(/(?<= )/), usage, false, false);
            res.writeHead(200, { 'content-type': 'application/json' }).end(
              JSON.stringify({
                id: 'chatcmpl-fake',
                object: 'chat.completion',
                choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
                ...(usage ? { usage: withTotal(usage) } : {}),
              }),
            );
          }
        }
      };
      const stream = (parts: string[], usage: { prompt_tokens: number; completion_tokens: number } | null | undefined, hold: boolean, failAfter: boolean) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const end = () => {
          if (res.destroyed) return;
          if (failAfter) return res.end('data: {"choices": [{"delta"\n\n');
          const counted = usage === undefined ? { prompt_tokens: 42, completion_tokens: parts.length } : usage;
          res.end(`${counted ? chunk({}, withTotal(counted)) : ''}data: [DONE]\n\n`);
        };
        if (delay > 0) {
          // A model writing for `delay`: its pieces at even steps, the last one at the end.
          const step = delay / Math.max(1, parts.length);
          parts.forEach((part, i) =>
            setTimeout(() => {
              if (!res.destroyed) res.write(chunk({ content: part }));
            }, step * i + step / 2),
          );
          setTimeout(end, delay);
          return;
        }
        for (const part of parts) res.write(chunk({ content: part }));
        if (hold && !released) held.add(end);
        else end();
      };
      // A streamed answer takes its time as it is written; any other is sent after the delay.
      if (delay > 0 && !(body.stream && behaviour.kind === 'answer')) setTimeout(() => respond(behaviour), delay);
      else respond(behaviour);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    counts,
    script(...behaviours) {
      queue = behaviours;
      released = false;
    },
    received: (n) => until(() => counts.received >= n),
    aborted: (n) => until(() => counts.aborted >= n),
    release() {
      released = true;
      for (const end of held) end();
      held.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A provider whose queries cost one prompt and one answer token, so a plan's daily tokens never
 * run out before its monthly queries: the quota race is then about queries alone.
 */
export const tinyProvider: AiProvider = {
  promptTokens: () => 1,
  maxCompletionTokens: () => 1,
  answer: async () => ({ answer: 'ok', tokens: { prompt: 1, completion: 1, total: 2 } }),
};

/** Puts a user on a paid plan as the billing module would record it: active, renewing in 30 days. */
export async function setPlan(db: Kysely<Database>, userId: string, plan: PlanId, now: number): Promise<void> {
  const row = {
    plan,
    status: 'active' as const,
    current_period_start: now,
    current_period_end: now + 30 * 86_400_000,
    cancel_at_period_end: 0,
    scheduled_plan: null,
    provider: 'test' as const,
    provider_customer_id: null,
    provider_subscription_id: null,
    provider_updated_at: now,
    updated_at: now,
  };
  await db
    .insertInto('subscriptions')
    .values({ user_id: userId, ...row })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(row))
    .execute();
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { PlanId } from '../../contract/plans';
import type { AiProvider } from '../../server/ai/provider';
import type { Database } from '../../server/db/types';

/** What the fake endpoint does with one request. */
export type FakeBehaviour =
  | { kind: 'answer'; content?: string; usage?: { prompt_tokens: number; completion_tokens: number } | null }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'hang' }
  | { kind: 'malformed' };

export interface ChatRequest {
  headers: http.IncomingHttpHeaders;
  body: { model: string; max_tokens: number; messages: Array<{ role: string; content: string }> };
}

export interface FakeOpenAi {
  /** The base URL to configure as LLM_BASE_URL. */
  baseUrl: string;
  requests: ChatRequest[];
  /** Behaviours for the next requests, in order; after them every request is answered. */
  script(...behaviours: FakeBehaviour[]): void;
  close(): Promise<void>;
}

/**
 * A local OpenAI-compatible chat-completions endpoint. By default it answers by echoing the
 * user's message, and its error bodies echo it too, as real providers' sometimes do: whatever the
 * server does with a provider's answer or error, the test can see where the prompt went.
 */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: ChatRequest[] = [];
  let queue: FakeBehaviour[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      requests.push({ headers: req.headers, body });
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const behaviour = queue.shift() ?? { kind: 'answer' };
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
        case 'answer': {
          const usage = behaviour.usage === undefined ? { prompt_tokens: 42, completion_tokens: 7 } : behaviour.usage;
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: 'chatcmpl-fake',
              object: 'chat.completion',
              choices: [{ index: 0, message: { role: 'assistant', content: behaviour.content ?? `You said: ${user}` }, finish_reason: 'stop' }],
              ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
            }),
          );
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(...behaviours) {
      queue = behaviours;
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

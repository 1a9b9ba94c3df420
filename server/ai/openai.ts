import type { AiConfig } from '../config';
import { approxTokens, chatMessages, messageTokens, ProviderError, type AiProvider } from './provider';

/** Two retries: a brief 429 or 5xx usually clears, a longer outage should fail fast. */
const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 250;
/** A chat completion is a few kilobytes; more than this is not an answer. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

interface Completion {
  choices?: Array<{ message?: { content?: unknown } }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

const count = (value: unknown): number | null => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : null);

/** Seconds of a `Retry-After` header given in seconds (the form APIs use); null otherwise. */
function retryAfterSeconds(header: string | null): number | null {
  return header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : null;
}

async function readBounded(response: Response): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Any OpenAI-compatible chat-completions endpoint. One deadline covers every attempt; 429 and 5xx
 * are retried with backoff (or the `Retry-After` asked for, when it fits in the deadline). Token
 * counts are the provider's own; only when it reports none are they approximated.
 */
export function openAiProvider(config: AiConfig): AiProvider {
  const endpoint = `${config.baseUrl}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  return {
    promptTokens: messageTokens,
    maxCompletionTokens: () => config.maxCompletionTokens,
    async answer(request, completionTokens) {
      const body = JSON.stringify({ model: config.model, messages: chatMessages(request), max_tokens: completionTokens });
      const deadline = Date.now() + config.timeoutMs;
      const once = async () => {
        let response: Response;
        let text: string | null;
        try {
          response = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
          text = await readBounded(response);
        } catch (error) {
          // By name: a DOMException from fetch is not an `Error` of every realm (jest's, for one).
          if ((error as { name?: unknown } | null)?.name === 'TimeoutError') {
            throw new ProviderError('timeout', `The AI provider did not answer within ${config.timeoutMs} ms.`);
          }
          throw new ProviderError('failed', 'The AI provider could not be reached.', { retryable: true });
        }
        if (response.ok) return parseCompletion(text, messageTokens(request));
        const retryAfterS = retryAfterSeconds(response.headers.get('retry-after'));
        if (response.status === 429) {
          throw new ProviderError('rate_limited', 'The AI provider is busy.', { status: 429, retryable: true, ...(retryAfterS !== null ? { retryAfterS } : {}) });
        }
        throw new ProviderError('failed', `The AI provider answered with HTTP ${response.status}.`, {
          status: response.status,
          retryable: response.status >= 500,
        });
      };
      for (let attempt = 1; ; attempt++) {
        try {
          return await once();
        } catch (error) {
          if (!(error instanceof ProviderError) || !error.detail.retryable || attempt === MAX_ATTEMPTS) throw error;
          const backoff = BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
          const wait = error.detail.retryAfterS !== undefined ? error.detail.retryAfterS * 1000 : backoff;
          if (Date.now() + wait >= deadline) throw error;
          await sleep(wait);
        }
      }
    },
  };
}

function parseCompletion(text: string | null, estimatedPrompt: number) {
  const malformed = () => new ProviderError('malformed', 'The AI provider sent an answer that could not be read.');
  if (text === null) throw malformed();
  let completion: Completion;
  try {
    completion = JSON.parse(text) as Completion;
  } catch {
    throw malformed();
  }
  const answer = completion?.choices?.[0]?.message?.content;
  if (typeof answer !== 'string') throw malformed();
  const prompt = count(completion.usage?.prompt_tokens) ?? estimatedPrompt;
  const completionTokens = count(completion.usage?.completion_tokens) ?? approxTokens(answer);
  return { answer, tokens: { prompt, completion: completionTokens, total: prompt + completionTokens } };
}

import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AiConfig } from '../config';
import { approxTokens, CallAborted, chatMessages, messageTokens, ProviderError, tokenCounts, type AiProvider, type TokenCounts } from './provider';
import { retryBudget, type RetryBudget } from './retryBudget';

/** Two retries: a brief 429 or 5xx usually clears, a longer outage should fail fast. */
const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 250;
/** A chat completion is a few kilobytes; more than this is not an answer. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

interface Completion {
  choices?: Array<{ message?: { content?: unknown } }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

/** One chunk of a streamed completion (`data: {…}` of its server-sent events). */
interface CompletionChunk {
  choices?: Array<{ delta?: { content?: unknown } }>;
  usage?: Completion['usage'] | null;
}

const count = (value: unknown): number | null => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : null);

/** Seconds of a `Retry-After` header given in seconds (the form APIs use); null otherwise. */
function retryAfterSeconds(header: string | null): number | null {
  return header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : null;
}

const malformed = () => new ProviderError('malformed', 'The AI provider sent an answer that could not be read.');

/**
 * The body's text, or null past MAX_RESPONSE_BYTES. With `each`, every piece goes to it as it
 * comes and none is kept (the text resolved is then empty): a streamed answer's raw events would
 * otherwise stay in memory until its end, thousands of answers at once. Read through 'data' events
 * and one StringDecoder: a streamed answer comes in many small pieces, and an async iterator's
 * promise and a TextDecoder call for each cost more than the piece.
 */
function readBounded(response: http.IncomingMessage, each?: (text: string) => void): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let text = '';
    let size = 0;
    // The bytes as they come are what the limit counts; the decoder keeps a character split
    // between two pieces for the next.
    const decoder = new StringDecoder('utf8');
    const take = (piece: string) => {
      if (piece === '') return;
      if (!each) text += piece;
      try {
        each?.(piece);
      } catch (error) {
        response.destroy();
        reject(error);
      }
    };
    response.on('data', (bytes: Buffer) => {
      size += bytes.length;
      if (size > MAX_RESPONSE_BYTES) {
        response.destroy();
        resolve(null);
        return;
      }
      take(decoder.write(bytes));
    });
    response.once('end', () => {
      take(decoder.end());
      resolve(text);
    });
    response.once('error', reject);
    // Destroyed (the call aborted) before its end: an error rather than a wait that never ends.
    response.once('close', () => {
      if (!response.complete) reject(new Error('the response ended before its end'));
    });
  });
}

/**
 * POSTs `body` and resolves with the response once its headers are in. Node's own HTTP client
 * rather than fetch: a call waiting on the model holds about half the memory (a socket and a
 * native parser, where fetch keeps a larger state per request), and thousands of calls wait at once.
 */
function post(endpoint: URL, agent: http.Agent, headers: Record<string, string>, body: string, call: Call): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (call.stopped) {
      reject(new Error('the call was stopped before it was sent'));
      return;
    }
    const request = (endpoint.protocol === 'https:' ? https : http).request(
      endpoint,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      resolve,
    );
    call.request = request;
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * One attempt's HTTP call, stopped (destroyed where it is: sending, waiting or reading) at its
 * deadline or when the client leaves. Destroying the request is what an AbortSignal passed to it
 * would do; without one, no signal and listeners are made per call, thousands being in flight.
 */
interface Call {
  request?: http.ClientRequest;
  stopped: boolean;
}

function stopCall(call: Call): void {
  call.stopped = true;
  call.request?.destroy(new Error('the call was stopped'));
}

/**
 * Reads a streamed completion (OpenAI's server-sent events: `data: {chunk}` lines, then
 * `data: [DONE]`), handing each piece of text to `onDelta` as it comes; `written` keeps what was
 * handed on, so an aborted call knows what it spent. Token counts come from the last chunk's
 * `usage` (sent when `stream_options.include_usage` is asked), else are approximated.
 */
async function readStream(response: http.IncomingMessage, written: { text: string }, onDelta: (text: string) => void) {
  let pending = '';
  let usage: CompletionChunk['usage'] = null;
  let ended = false;
  const line = (raw: string) => {
    const trimmed = raw.trim();
    if (!trimmed.startsWith('data:') || ended) return;
    const data = trimmed.slice(5).trim();
    if (data === '[DONE]') {
      ended = true;
      return;
    }
    let chunk: CompletionChunk;
    try {
      chunk = JSON.parse(data) as CompletionChunk;
    } catch {
      throw malformed();
    }
    if (chunk.usage) usage = chunk.usage;
    const content = chunk.choices?.[0]?.delta?.content;
    if (typeof content === 'string' && content !== '') {
      written.text += content;
      onDelta(content);
    }
  };
  const read = await readBounded(response, (piece) => {
    pending += piece;
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      line(pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
  });
  if (read === null) throw malformed();
  line(pending);
  return { answer: written.text, usage };
}

/**
 * Any OpenAI-compatible chat-completions endpoint. One deadline covers every attempt; 429 and 5xx
 * are retried with backoff (or the `Retry-After` asked for, when it fits in the deadline), while
 * the retry budget allows (`retryBudget.ts`) and only before any of the answer was handed on. Token
 * counts are the provider's own; only when it reports none are they approximated. A call with
 * `onDelta` is streamed (`stream: true`); a provider that answers it with a plain completion
 * instead hands the whole answer on at once. `signal` aborts the call where it is, the backoff
 * included.
 */
export function openAiProvider(config: AiConfig, budget: RetryBudget = retryBudget()): AiProvider {
  const endpoint = new URL(`${config.baseUrl}/chat/completions`);
  // Kept-alive connections, as many as there are calls in flight.
  const agent = new (endpoint.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: Infinity });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const streamHeaders = { ...headers, accept: 'text/event-stream, application/json' };

  return {
    promptTokens: messageTokens,
    maxCompletionTokens: () => config.maxCompletionTokens,
    async answer(request, completionTokens, { signal, onDelta } = {}) {
      const streamed = onDelta !== undefined;
      const body = JSON.stringify({
        model: config.model,
        messages: chatMessages(request),
        max_tokens: completionTokens,
        ...(streamed ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
      const estimatedPrompt = messageTokens(request);
      const deadline = Date.now() + config.timeoutMs;
      const written = { text: '' };
      const spent = (): TokenCounts => tokenCounts(estimatedPrompt, approxTokens(written.text));
      const once = async () => {
        // The deadline's timer is cleared as the attempt ends, where AbortSignal.timeout's (and
        // AbortSignal.any's weak references) would stay until the collector found them.
        const call: Call = { stopped: false };
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          stopCall(call);
        }, Math.max(1, deadline - Date.now()));
        const clientLeft = () => stopCall(call);
        if (signal?.aborted) stopCall(call);
        else signal?.addEventListener('abort', clientLeft, { once: true });
        let response: http.IncomingMessage;
        let ok = false;
        let answer: string | null;
        let usage: Completion['usage'] | null = null;
        try {
          response = await post(endpoint, agent, streamed ? streamHeaders : headers, body, call);
          const status = response.statusCode ?? 0;
          ok = status >= 200 && status < 300;
          if (ok && streamed && (response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
            ({ answer, usage } = await readStream(response, written, onDelta));
          } else {
            const text = await readBounded(response);
            if (!ok) answer = null;
            else ({ answer, usage } = parseCompletion(text));
            if (answer !== null && streamed) {
              written.text = answer;
              onDelta(answer);
            }
          }
        } catch (error) {
          if (signal?.aborted) throw new CallAborted(spent());
          if (error instanceof ProviderError) throw error;
          if (timedOut) throw new ProviderError('timeout', `The AI provider did not answer within ${config.timeoutMs} ms.`);
          throw new ProviderError('failed', 'The AI provider could not be reached.', { retryable: written.text === '' });
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener('abort', clientLeft);
        }
        if (ok) {
          const prompt = count(usage?.prompt_tokens) ?? estimatedPrompt;
          return { answer: answer!, tokens: tokenCounts(prompt, count(usage?.completion_tokens) ?? approxTokens(answer!)) };
        }
        const retryAfterS = retryAfterSeconds(response.headers['retry-after'] ?? null);
        if (response.statusCode === 429) {
          throw new ProviderError('rate_limited', 'The AI provider is busy.', { status: 429, retryable: true, ...(retryAfterS !== null ? { retryAfterS } : {}) });
        }
        const status = response.statusCode ?? 0;
        throw new ProviderError('failed', `The AI provider answered with HTTP ${status}.`, { status, retryable: status >= 500 });
      };
      budget.called();
      for (let attempt = 1; ; attempt++) {
        try {
          return await once();
        } catch (error) {
          if (!(error instanceof ProviderError) || !error.detail.retryable || attempt === MAX_ATTEMPTS) throw error;
          const backoff = BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
          const wait = error.detail.retryAfterS !== undefined ? error.detail.retryAfterS * 1000 : backoff;
          if (Date.now() + wait >= deadline || !budget.mayRetry()) throw error;
          try {
            await sleep(wait, undefined, signal ? { signal } : {});
          } catch {
            throw new CallAborted(spent());
          }
        }
      }
    },
  };
}

function parseCompletion(text: string | null): { answer: string; usage: Completion['usage'] | null } {
  if (text === null) throw malformed();
  let completion: Completion;
  try {
    completion = JSON.parse(text) as Completion;
  } catch {
    throw malformed();
  }
  const answer = completion?.choices?.[0]?.message?.content;
  if (typeof answer !== 'string') throw malformed();
  return { answer, usage: completion.usage ?? null };
}

import type { FormulaCheck } from './formulas/engine';

/**
 * The one interface every AI provider implements, and what they share: the tasks, the messages a
 * model is sent, and the token approximation used wherever a provider does not count for itself.
 */
import type { Task } from '../../contract/functions';
export { TASKS, type Task } from '../../contract/functions';

/** A spreadsheet cell as the add-on sends it. */
export type Cell = string | number | boolean | null;

export interface AiRequest {
  task: Task;
  prompt: string;
  /** The selected range, row by row. */
  data?: Cell[][];
  /** Where the data sits in the sheet ("C3:F40"): `data[0][0]` is its first cell; A1 when absent. */
  range?: string;
  /** A second round: the model's first answer, and what the server found wrong with its formula. */
  followUp?: { answer: string; correction: string };
}

export interface TokenCounts {
  prompt: number;
  completion: number;
  total: number;
}

export interface AiAnswer {
  answer: string;
  tokens: TokenCounts;
  /** The formula the answer shows, as the engine checked it on the data; null or absent when it shows none. */
  formula?: FormulaCheck | null;
}

export interface AiProvider {
  /** Who answers: "offline", or the model's name. */
  readonly engine?: string;
  /**
   * Answers in memory, with no I/O: its answer is then computed inside the unit that reserves and
   * settles the query, one commit instead of two.
   */
  readonly inMemory?: boolean;
  /** Tokens of the request's prompt, counted before the call to size its reservation. */
  promptTokens(request: AiRequest): number;
  /** The most tokens an answer to the request may take. */
  maxCompletionTokens(request: AiRequest): number;
  /**
   * Answers in at most `completionTokens` tokens; fails with a ProviderError, or with CallAborted
   * when `options.signal` aborts it.
   */
  answer(request: AiRequest, completionTokens: number, options?: AnswerOptions): Promise<AiAnswer>;
}

export interface AnswerOptions {
  /** Aborts the call (its client left): the provider stops, and CallAborted says what it spent. */
  signal?: AbortSignal;
  /** Receives the answer piece by piece as the model writes it: the call is then streamed where the provider can. */
  onDelta?: (text: string) => void;
}

/** The call was aborted by its signal; `spent` is what the provider had taken so far (approximated where it did not say). */
export class CallAborted extends Error {
  constructor(readonly spent: TokenCounts) {
    super('The call was aborted.');
    this.name = 'CallAborted';
  }
}

/** Token counts of a prompt and an answer. */
export function tokenCounts(prompt: number, completion: number): TokenCounts {
  return { prompt, completion, total: prompt + completion };
}

export type ProviderFailure = 'timeout' | 'rate_limited' | 'failed' | 'malformed';

/** A provider that did not answer. The message is ours: never the provider's body, which may quote the prompt. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailure,
    message: string,
    readonly detail: { status?: number; retryAfterS?: number; retryable?: boolean } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * About four bytes of UTF-8 per token: OpenAI's rule of thumb for English text, and closer than
 * a count of characters for other scripts, whose characters take more bytes and more tokens.
 */
export function approxTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** The chat format adds a few tokens around every message. */
const TOKENS_PER_MESSAGE = 4;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const INSTRUCTIONS: Record<Task, string> = {
  analyze: 'Analyse the spreadsheet data and report the insights the user asks for, with the figures that support them.',
  formula:
    'Write the spreadsheet formula the user asks for, then explain briefly how it works. Put the formula, starting with =, alone in a fenced code block (```excel). It is checked on the data, whose first cell is A1 unless the user says where the data sits.',
  explain:
    'Explain, step by step and in plain language, the spreadsheet formula or feature the user asks about. Put the formula you explain, starting with =, alone in a fenced code block (```excel). It is checked on the data, whose first cell is A1 unless the user says where the data sits.',
  guide: 'Give a short numbered step-by-step guide for what the user wants to do in the spreadsheet.',
  ask: 'Answer the question about the spreadsheet plainly and briefly.',
};

/** What a model is sent for a request: the task's instruction, then the prompt and the data, one JSON array per row. */
export function chatMessages(request: AiRequest): ChatMessage[] {
  const data = request.data?.length
    ? `\n\nSpreadsheet data, one JSON array per row:\n${request.data.map((row) => JSON.stringify(row)).join('\n')}`
    : '';
  const where = request.range ? `\n\nThe data sits at ${request.range}.` : '';
  const messages: ChatMessage[] = [
    { role: 'system', content: `You are a spreadsheet assistant. ${INSTRUCTIONS[request.task]}` },
    { role: 'user', content: request.prompt + where + data },
  ];
  if (request.followUp) messages.push({ role: 'assistant', content: request.followUp.answer }, { role: 'user', content: request.followUp.correction });
  return messages;
}

/** The approximate prompt tokens of a request, the same whichever provider answers it. */
export function messageTokens(request: AiRequest): number {
  return chatMessages(request).reduce((sum, message) => sum + approxTokens(message.content) + TOKENS_PER_MESSAGE, 0);
}

const CUT_MARK = ' … [cut: the answer reached its token limit]';

/** `text` cut to fit `tokens` by the approximation, saying so when it had to cut. */
export function fitToTokens(text: string, tokens: number): string {
  const bytes = Buffer.from(text, 'utf8');
  const budget = tokens * 4;
  if (bytes.length <= budget) return text;
  const mark = Buffer.byteLength(CUT_MARK, 'utf8') < budget ? CUT_MARK : '';
  // A cut inside a multi-byte character decodes to U+FFFD, which is dropped.
  const kept = bytes.subarray(0, budget - Buffer.byteLength(mark, 'utf8')).toString('utf8').replace(/\uFFFD+$/, '');
  return (mark ? kept.trimEnd() : kept) + mark;
}

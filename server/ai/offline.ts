import { approxTokens, fitToTokens, messageTokens, type AiProvider, type AiRequest, type Cell, type Task } from './provider';

/**
 * The built-in provider: no model and no network. It answers `analyze` honestly from the data it
 * was given (descriptive statistics per column) and says plainly what it cannot do for the other
 * tasks. Its answers are computed in memory before the reservation, so a query reserves exactly
 * the tokens its answer takes.
 */
export function offlineProvider(): AiProvider {
  // Worked out once per request object: for the reservation's size, then for the answer.
  const worked = new WeakMap<AiRequest, { text: string; promptTokens: number; answerTokens: number }>();
  const work = (request: AiRequest) => {
    let done = worked.get(request);
    if (!done) {
      const text = request.task === 'analyze' ? describeData(request.data ?? []) : cannotDo(request.task, request.data ?? []);
      done = { text, promptTokens: messageTokens(request), answerTokens: approxTokens(text) };
      worked.set(request, done);
    }
    return done;
  };
  return {
    inMemory: true,
    promptTokens: (request) => work(request).promptTokens,
    maxCompletionTokens: (request) => work(request).answerTokens,
    async answer(request, completionTokens) {
      const { text, promptTokens, answerTokens } = work(request);
      const answer = answerTokens <= completionTokens ? text : fitToTokens(text, completionTokens);
      const completion = answer === text ? answerTokens : approxTokens(answer);
      return { answer, tokens: { prompt: promptTokens, completion, total: promptTokens + completion } };
    },
  };
}

const WHAT: Record<Exclude<Task, 'analyze'>, string> = {
  formula: 'Writing formulas',
  explain: 'Explaining formulas',
  guide: 'Writing step-by-step guides',
  ask: 'Answering questions in plain language',
};

function cannotDo(task: Exclude<Task, 'analyze'>, data: Cell[][]): string {
  const shape = data.length > 0 ? ` (this request came with ${size(data)})` : '';
  return (
    `${WHAT[task]} needs an AI model, and this server runs the offline assistant, which has none. ` +
    `It can compute descriptive statistics of a selected range: use the analyze task${shape}.`
  );
}

function size(data: Cell[][]): string {
  const columns = widest(data);
  return `${plural(data.length, 'row')} × ${plural(columns, 'column')}`;
}

/** The longest row's length. A loop, not `Math.max(...rows)`: spreading 100,000 rows overflows the stack. */
function widest(data: Cell[][]): number {
  let width = 0;
  for (const row of data) width = Math.max(width, row.length);
  return width;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

const NUMERIC_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A number, or text that is exactly a decimal number ("12.5", "-3e2"); null otherwise. */
function numericValue(cell: Cell): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'string' && NUMERIC_TEXT.test(cell.trim())) return Number(cell.trim());
  return null;
}

function isBlank(cell: Cell | undefined): boolean {
  return cell === undefined || cell === null || (typeof cell === 'string' && cell.trim() === '');
}

/** Spreadsheet column letters: 0 → A, 25 → Z, 26 → AA. */
function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Twelve significant digits: enough for any cell, and 0.1 + 0.2 reads 0.3. */
function formatNumber(value: number): string {
  const shortest = String(value);
  // A number that reads in twelve digits or fewer already rounds to itself (and toPrecision is slow).
  if (Number.isInteger(value) || significantDigits(shortest) <= 12) return shortest;
  return String(Number(value.toPrecision(12)));
}

/** Digits of a number's text, without leading zeros, sign, point or exponent: "-0.0250" → 3. */
function significantDigits(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 101 /* e */) break;
    if (code < 48 || code > 57 || (digits === 0 && code === 48)) continue;
    digits += 1;
  }
  return digits;
}

/**
 * Count, numeric count, sum, mean, min, max and blanks of every column. The first row is taken as
 * headers when it has another row below it and all its cells are text that is not a number. Rows
 * shorter than the widest one count their missing cells as blanks.
 */
function describeData(data: Cell[][]): string {
  const width = widest(data);
  if (width === 0) return 'No data came with this request, so there is nothing to analyse: select a range and ask again.';
  const first = data[0]!;
  const hasHeaders =
    data.length > 1 && first.length === width && first.every((cell) => typeof cell === 'string' && !isBlank(cell) && numericValue(cell) === null);
  const rows = hasHeaders ? data.slice(1) : data;
  const lines = [
    `Descriptive statistics of ${plural(rows.length, 'row')} × ${plural(width, 'column')}` +
      `${hasHeaders ? ' (the first row is used as headers)' : ''}. ` +
      'The offline assistant computes these from the data; it does not read the question.',
  ];
  for (let column = 0; column < width; column++) {
    let values = 0;
    let blanks = 0;
    let numeric = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const row of rows) {
      const cell = row[column];
      if (isBlank(cell)) {
        blanks += 1;
        continue;
      }
      values += 1;
      const value = numericValue(cell!);
      if (value === null) continue;
      numeric += 1;
      sum += value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    const name = hasHeaders ? `${columnLetters(column)} "${String(first[column])}"` : columnLetters(column);
    const figures =
      numeric > 0
        ? `; sum ${formatNumber(sum)}, mean ${formatNumber(sum / numeric)}, min ${formatNumber(min)}, max ${formatNumber(max)}`
        : '';
    lines.push(`${name}: ${plural(values, 'value')}, ${numeric} numeric, ${plural(blanks, 'blank')}${figures}.`);
  }
  return lines.join('\n');
}

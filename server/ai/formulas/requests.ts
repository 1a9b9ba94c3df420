import type { Cell } from '../provider';
import { cellName, columnNumber, headerOf, isBlank, numericValue, type Sheet } from './sheet';

/**
 * The common formula requests the offline assistant understands, over the headers of the data:
 * total, average, count, minimum and maximum of a column; the same where another column equals,
 * exceeds or is below a value; a lookup of one column by a value in another; a percentage of the
 * total; a rank. Anything else is left to a model.
 */

export interface UnderstoodRequest {
  /** What was understood, in words: "the total of Revenue where Region is "North"". */
  understood: string;
  formula: string;
  /** Show the value as a percentage. */
  percent: boolean;
}

interface Column {
  number: number;
  name: string;
  /** The data cells below the header, as a range: "E2:E9". */
  range: string;
  numeric: boolean;
  cells: Cell[];
}

interface Mention {
  column: Column;
  at: number;
}

type Aggregate = 'SUM' | 'AVERAGE' | 'COUNT' | 'MIN' | 'MAX';

const AGGREGATES: Array<[RegExp, Aggregate]> = [
  [/\b(total|sum|add up|adds up)\b/, 'SUM'],
  [/\b(average|mean|avg)\b/, 'AVERAGE'],
  [/\b(count|how many|number of)\b/, 'COUNT'],
  [/\b(minimum|min|lowest|smallest|least)\b/, 'MIN'],
  [/\b(maximum|max|highest|largest|biggest|greatest|top)\b/, 'MAX'],
];

const WORDS: Record<Aggregate, string> = { SUM: 'the total', AVERAGE: 'the average', COUNT: 'the count', MIN: 'the minimum', MAX: 'the maximum' };

const ABOVE = /\b(greater than or equal to|at least|no less than|greater than|more than|larger than|higher than|bigger than|above|over|exceeds?|exceeding)\b|(>=|>)/;
const BELOW = /\b(less than or equal to|at most|no more than|less than|fewer than|smaller than|lower than|below|under)\b|(<=|<)/;
const NUMBER_AFTER = /^\s*(?:of\s+|is\s+|=\s*)?\$?(-?\d[\d,]*(?:\.\d+)?|-?\.\d+)/;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function columnsOf(sheet: Sheet): Column[] {
  const first = sheet.top + 1;
  const last = sheet.top + sheet.rows - 1;
  const columns: Column[] = [];
  for (let c = 0; c < sheet.columns; c++) {
    const number = sheet.left + c;
    const name = headerOf(sheet, number);
    if (name === null) continue;
    const cells = sheet.data.slice(1).map((row) => row[c] ?? null);
    const filled = cells.filter((cell) => !isBlank(cell));
    const numeric = filled.length > 0 && filled.filter((cell) => numericValue(cell) !== null).length * 2 > filled.length;
    columns.push({ number, name, range: `${cellName(first, number)}:${cellName(last, number)}`, numeric, cells });
  }
  return columns;
}

/** Every place a column is named: by its header (longest first, so "Unit Price" wins over "Price") or as "column E". */
function mentions(prompt: string, columns: Column[]): Mention[] {
  const found: Mention[] = [];
  const taken: Array<[number, number]> = [];
  const free = (at: number, end: number) => taken.every(([a, b]) => end <= a || at >= b);
  for (const column of [...columns].sort((a, b) => b.name.length - a.name.length)) {
    const pattern = new RegExp(`(^|[^\\p{L}\\p{N}])(${escapeRegExp(column.name.toLowerCase())})(?:'s|s)?(?=$|[^\\p{L}\\p{N}])`, 'gu');
    for (const match of prompt.matchAll(pattern)) {
      const at = match.index + match[1]!.length;
      const end = at + match[2]!.length;
      if (!free(at, end)) continue;
      taken.push([at, end]);
      found.push({ column, at });
    }
  }
  for (const match of prompt.matchAll(/\bcolumn ([a-z]{1,3})\b/g)) {
    const column = columns.find((c) => c.number === columnNumber(match[1]!));
    if (column && free(match.index, match.index + match[0].length)) found.push({ column, at: match.index });
  }
  return found.sort((a, b) => a.at - b.at);
}

/** A text value of the data the prompt names ("North", "Cara"): the longest one, with its column. */
function valueMention(prompt: string, original: string, columns: Column[], skip: Mention[]): { column: Column; value: string; at: number } | null {
  const quoted = /["“']([^"”']+)["”']/.exec(original);
  let best: { column: Column; value: string; at: number } | null = null;
  for (const column of columns) {
    if (column.numeric) continue;
    for (const cell of column.cells) {
      if (typeof cell !== 'string' || cell.trim() === '') continue;
      const value = cell.trim();
      if (quoted && quoted[1]!.trim().toLowerCase() !== value.toLowerCase()) continue;
      const pattern = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(value.toLowerCase())}(?:'s)?(?=$|[^\\p{L}\\p{N}])`, 'u');
      const match = pattern.exec(prompt);
      if (!match) continue;
      const at = match.index + match[1]!.length;
      // A header named in the prompt is a column, not a value.
      if (skip.some((m) => m.at === at)) continue;
      if (!best || value.length > best.value.length) best = { column, value, at };
    }
  }
  return best;
}

const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;

interface Condition {
  column: Column;
  /** The criterion as COUNTIF takes it: "North", ">15". */
  criterion: string;
  words: string;
}

function comparison(prompt: string, mentioned: Mention[]): { condition: Condition; at: number } | null {
  for (const [pattern, sign] of [
    [ABOVE, '>'],
    [BELOW, '<'],
  ] as const) {
    const match = pattern.exec(prompt);
    if (!match) continue;
    const phrase = match[0];
    const number = NUMBER_AFTER.exec(prompt.slice(match.index + phrase.length));
    if (!number) continue;
    const value = Number(number[1]!.replace(/,/g, ''));
    const inclusive = /equal|at least|at most|no less|no more|>=|<=/.test(phrase);
    const op = `${sign}${inclusive ? '=' : ''}`;
    // The column compared is the one named last before the comparison, or the first after it.
    const before = mentioned.filter((m) => m.at < match.index && m.column.numeric).at(-1);
    const after = mentioned.find((m) => m.at > match.index && m.column.numeric);
    const column = (before ?? after)?.column;
    if (!column) continue;
    const words = `${column.name} is ${sign === '>' ? (inclusive ? 'at least' : 'above') : inclusive ? 'at most' : 'below'} ${value}`;
    return { condition: { column, criterion: quote(`${op}${value}`), words }, at: match.index };
  }
  return null;
}

/** A column equal to a number: "where Price is 10", "Price = 10". */
function numericEquality(prompt: string, mentioned: Mention[]): Condition | null {
  for (const mention of mentioned) {
    if (!mention.column.numeric) continue;
    const rest = prompt.slice(mention.at + mention.column.name.length);
    const match = /^\s*(?:is|equals?|=|==|is equal to)\s*(-?\d[\d,]*(?:\.\d+)?)\b/.exec(rest);
    if (match) {
      const value = Number(match[1]!.replace(/,/g, ''));
      return { column: mention.column, criterion: String(value), words: `${mention.column.name} is ${value}` };
    }
  }
  return null;
}

/** Reads a plain-language request over the data's headers; null when it is not one of the common ones. */
export function understandRequest(original: string, sheet: Sheet): UnderstoodRequest | null {
  if (!sheet.headers || sheet.rows < 2) return null;
  const prompt = original.toLowerCase();
  const columns = columnsOf(sheet);
  const mentioned = mentions(prompt, columns);
  if (mentioned.length === 0) return null;
  const value = valueMention(prompt, original, columns, mentioned);
  const compared = comparison(prompt, mentioned);
  const equalNumber = compared ? null : numericEquality(prompt, mentioned);
  const equality: Condition | null = value
    ? { column: value.column, criterion: quote(value.value), words: `${value.column.name} is "${value.value}"` }
    : null;
  // One condition at most: a request with two, or with words of a condition not understood, is a model's.
  if ((compared || equalNumber) && equality && (compared?.condition ?? equalNumber)!.column !== equality.column) return null;
  const condition = compared?.condition ?? equalNumber ?? equality;
  const numericMentions = mentioned.filter((m) => m.column.numeric);
  // The column the request is about: a numeric one named that the condition does not test, else the one it tests.
  const target = (numericMentions.find((m) => m.column !== condition?.column) ?? numericMentions[0] ?? mentioned.find((m) => m.column !== condition?.column) ?? mentioned[0])!.column;

  if (/\brank/.test(prompt) && target.numeric) {
    if (value && value.column !== target) {
      return {
        understood: `the rank of ${value.value}'s ${target.name} among all ${target.name} (1 for the largest)`,
        formula: `=RANK(INDEX(${target.range},MATCH(${quote(value.value)},${value.column.range},0)),${target.range})`,
        percent: false,
      };
    }
    const number = /(-?\d[\d,]*(?:\.\d+)?)/.exec(prompt.replace(/\bcolumn [a-z]{1,3}\b/g, ''));
    if (number) {
      const n = Number(number[1]!.replace(/,/g, ''));
      return { understood: `the rank of ${n} among ${target.name} (1 for the largest)`, formula: `=RANK(${n},${target.range})`, percent: false };
    }
    return null;
  }

  if (/\b(and|or|not|except|excluding|between|unless|per|each|by)\b/.test(prompt)) return null;
  if (!condition && /\b(where|when|if|whose|which|that|for|with|only)\b/.test(prompt)) return null;

  if (/\b(percent|percentage|share|proportion)\b|%/.test(prompt) && target.numeric) {
    if (condition && condition.column !== target) {
      return {
        understood: `the share of the total ${target.name} where ${condition.words}`,
        formula: `=SUMIF(${condition.column.range},${condition.criterion},${target.range})/SUM(${target.range})`,
        percent: true,
      };
    }
    return null;
  }

  const aggregate = AGGREGATES.find(([pattern]) => pattern.test(prompt))?.[1];
  if (!aggregate) {
    // A lookup: a value of one column, and another column to give back.
    if (value && /\b(look ?up|find|return|what is|what's|get|fetch|show|which|of)\b/.test(prompt)) {
      const wanted = mentioned.find((m) => m.column !== value.column)?.column;
      if (!wanted) return null;
      return {
        understood: `the ${wanted.name} of the row whose ${value.column.name} is "${value.value}"`,
        formula: `=INDEX(${wanted.range},MATCH(${quote(value.value)},${value.column.range},0))`,
        percent: false,
      };
    }
    return null;
  }

  const subject = aggregate === 'COUNT' && !numericMentions.length ? (condition?.column ?? target) : target;
  if (!condition) {
    const fn = aggregate === 'COUNT' && !subject.numeric ? 'COUNTA' : aggregate;
    if (aggregate !== 'COUNT' && !subject.numeric) return null;
    return { understood: `${WORDS[aggregate]} of ${subject.name}`, formula: `=${fn}(${subject.range})`, percent: false };
  }
  if (aggregate !== 'COUNT' && !subject.numeric) return null;
  const { column, criterion, words } = condition;
  const of = aggregate === 'COUNT' ? 'the rows' : subject.name;
  const understood = `${WORDS[aggregate]} of ${of} where ${words}`;
  switch (aggregate) {
    case 'COUNT':
      return { understood: `the count of rows where ${words}`, formula: `=COUNTIF(${column.range},${criterion})`, percent: false };
    case 'SUM':
      return { understood, formula: `=SUMIF(${column.range},${criterion},${subject.range})`, percent: false };
    case 'AVERAGE':
      return { understood, formula: `=AVERAGEIF(${column.range},${criterion},${subject.range})`, percent: false };
    default:
      return { understood, formula: `=${aggregate}IFS(${subject.range},${column.range},${criterion})`, percent: false };
  }
}

/**
 * The shape of a formula, read from its text without evaluating it: the functions it calls (with
 * where each call starts and ends, so the order of computation is known), the ranges it reads and
 * how deeply it nests. The engine parses and evaluates; this scan only names the parts.
 */

export interface Call {
  name: string;
  /** Offsets of the name's first character and of the closing parenthesis (or the text's end). */
  start: number;
  end: number;
  /** 1 for a call at the top level, 2 for a call inside it, and so on. */
  depth: number;
}

export interface Reference {
  /** As written, without `$` signs: "B2:B9", "A:A", "3:3", "Sheet2!A1". */
  text: string;
  sheet: string | null;
  start: number;
}

export interface Structure {
  calls: Call[];
  references: Reference[];
  /** The deepest nesting of parentheses and braces. */
  depth: number;
}

const IDENTIFIER = /[A-Za-z_\\$][A-Za-z0-9_.$]*/y;
const CELL = /^\$?[A-Za-z]{1,3}\$?\d+$/;
const COLUMN = /^\$?[A-Za-z]{1,3}$/;
const ROW = /^\$?\d+$/;
const QUOTED_SHEET = /'((?:[^']|'')*)'!/y;
const ROW_RANGE = /\$?\d+:\$?\d+/y;
const NUMBER = /(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/y;
const ERROR_LITERAL = /#(NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A|GETTING_DATA)/iy;

function matchAt(pattern: RegExp, text: string, at: number): string | null {
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  return match ? match[0] : null;
}

/** Reads `text` (with or without its leading `=`) from left to right. */
export function scanFormula(text: string): Structure {
  const calls: Call[] = [];
  const references: Reference[] = [];
  /** Open parentheses and braces: the index of their call in `calls`, or -1. */
  const open: number[] = [];
  let depth = 0;
  let i = 0;
  const readReference = (sheet: string | null, at: number, from: number) => {
    // A cell, a column or a row, then optionally ":" and another of the same kind.
    const first = matchAt(IDENTIFIER, text, at) ?? matchAt(ROW_RANGE, text, at);
    if (first === null) return false;
    let end = at + first.length;
    let written = first;
    if (ROW.test(first.split(':')[0]!) && first.includes(':')) {
      // A row range such as 3:5.
    } else if (text[end] === ':') {
      const second = matchAt(IDENTIFIER, text, end + 1) ?? matchAt(NUMBER, text, end + 1);
      const kind = (part: string) => (CELL.test(part) ? 'cell' : COLUMN.test(part) ? 'column' : ROW.test(part) ? 'row' : null);
      if (second !== null && kind(first) !== null && kind(first) === kind(second)) {
        written = `${first}:${second}`;
        end += 1 + second.length;
      }
    }
    const bare = written.replace(/\$/g, '');
    const isRange = bare.includes(':');
    if (!isRange && !CELL.test(written)) return false;
    if (text[end] === '(') return false;
    references.push({ text: sheet === null ? bare : `${sheet}!${bare}`, sheet, start: from });
    i = end;
    return true;
  };
  if (text.startsWith('=')) i = 1;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"') {
      // A string; "" inside it is one quote.
      i += 1;
      while (i < text.length && !(text[i] === '"' && text[i + 1] !== '"')) i += text[i] === '"' ? 2 : 1;
      i += 1;
      continue;
    }
    if (char === "'") {
      const quoted = matchAt(QUOTED_SHEET, text, i);
      if (quoted !== null && readReference(quoted.slice(1, -2).replace(/''/g, "'"), i + quoted.length, i)) continue;
      i += 1;
      continue;
    }
    if (char === '#') {
      i += (matchAt(ERROR_LITERAL, text, i) ?? '#').length;
      continue;
    }
    if (char === '(' || char === '{') {
      open.push(-1);
      depth = Math.max(depth, open.length);
      i += 1;
      continue;
    }
    if (char === ')' || char === '}') {
      const call = open.pop();
      if (call !== undefined && call >= 0) calls[call]!.end = i;
      i += 1;
      continue;
    }
    if (/\d/.test(char) || (char === '.' && /\d/.test(text[i + 1] ?? ''))) {
      if (matchAt(ROW_RANGE, text, i) !== null && readReference(null, i, i)) continue;
      i += (matchAt(NUMBER, text, i) ?? char).length;
      continue;
    }
    const word = matchAt(IDENTIFIER, text, i);
    if (word !== null) {
      if (text[i + word.length] === '(') {
        calls.push({ name: word.toUpperCase().replace(/^_XLFN\./, ''), start: i, end: text.length, depth: open.length + 1 });
        open.push(calls.length - 1);
        depth = Math.max(depth, open.length);
        i += word.length + 1;
        continue;
      }
      if (text[i + word.length] === '!' && readReference(word, i + word.length + 1, i)) continue;
      if (readReference(null, i, i)) continue;
      i += word.length;
      continue;
    }
    i += 1;
  }
  return { calls, references, depth };
}

/** The calls in the order a spreadsheet computes them: every argument before the call that takes it. */
export function computationOrder(structure: Structure): Call[] {
  return [...structure.calls].sort((a, b) => a.end - b.end || b.depth - a.depth);
}

/** The distinct function names, in the order they first appear. */
export function functionNames(structure: Structure): string[] {
  return [...new Set(structure.calls.map((call) => call.name))];
}

/**
 * The formula with numbers such as 1E5 written as (1*10^5): the parsing library reads no
 * exponents. Strings and quoted sheet names are left as they are.
 */
export function withoutExponents(text: string): string {
  if (!/\d[eE]/.test(text)) return text;
  return text.replace(/("(?:[^"]|"")*"|'(?:[^']|'')*')|(^|[^A-Za-z0-9_.$])(\d+\.?\d*|\.\d+)[eE]([-+]?\d+)/g, (whole, quoted: string | undefined, before: string, mantissa: string, exponent: string) =>
    quoted ? whole : `${before}(${mantissa}*10^${exponent.replace(/^\+/, '')})`,
  );
}

import { FormulaError, type FunctionArg } from 'fast-formula-parser';
import operators from 'fast-formula-parser/formulas/operators';

/**
 * Where the parsing library departs from what Excel and Sheets document, the engine follows the
 * documentation (each case is in the formula corpus, tests/fixtures/formulaCorpus.ts):
 * - operators work element by element on ranges and arrays (`(A2:A9="North")*E2:E9`), where the
 *   library took each array's first item, and `=` compares text without regard to case;
 * - criteria (COUNTIF, SUMIF, …, MAXIFS) follow the documented rules: wildcards `*`, `?` and `~`
 *   match the whole text, an empty cell never matches 0, TRUE matches only TRUE;
 * - MATCH finds TRUE and FALSE too.
 */

type Value = unknown;
type Grid = Value[][];

const isError = (value: Value): value is FormulaError => value instanceof FormulaError;

/** Applies `op` to every pair of items, stretching a single row, column or value as a sheet does. */
function broadcast(a: Value, b: Value, op: (x: Value, y: Value) => Value): Value {
  const gridA = Array.isArray(a) ? (a as Grid) : null;
  const gridB = Array.isArray(b) ? (b as Grid) : null;
  if (!gridA && !gridB) return op(a, b);
  const rows = Math.max(gridA?.length ?? 1, gridB?.length ?? 1);
  const columns = Math.max(gridA?.[0]?.length ?? 1, gridB?.[0]?.length ?? 1);
  const pick = (grid: Grid | null, scalar: Value, row: number, column: number): Value => {
    if (!grid) return scalar;
    const r = grid.length === 1 ? 0 : row;
    const c = grid[0]!.length === 1 ? 0 : column;
    return r < grid.length && c < grid[r]!.length ? grid[r]![c] : FormulaError.NA;
  };
  return Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => {
      const x = pick(gridA, a, row, column);
      const y = pick(gridB, b, row, column);
      return isError(x) ? x : isError(y) ? y : op(x, y);
    }),
  );
}

function mapGrid(value: Value, op: (x: Value) => Value): Value {
  return Array.isArray(value) ? (value as Grid).map((row) => row.map((x) => (isError(x) ? x : op(x)))) : op(value);
}

let patched = false;

/** Makes the library's operators work on arrays; done once, before the first parser is made. */
export function correctOperators(): void {
  if (patched) return;
  patched = true;
  const { Infix, Prefix, Postfix } = operators;
  const { compareOp, concatOp, mathOp } = Infix;
  const { unaryOp } = Prefix;
  const { percentOp } = Postfix;
  const lower = (x: Value) => (typeof x === 'string' ? x.toLowerCase() : x);
  Infix.compareOp = (v1, infix, v2) => broadcast(v1, v2, (x, y) => compareOp(lower(x), infix, lower(y), false, false));
  Infix.concatOp = (v1, infix, v2) => broadcast(v1, v2, (x, y) => concatOp(x, infix, y, false, false));
  Infix.mathOp = (v1, infix, v2) => broadcast(v1, v2, (x, y) => mathOp(x, infix, y, false, false));
  Prefix.unaryOp = (prefixes, value) => mapGrid(value, (x) => unaryOp(prefixes, x, false));
  Postfix.percentOp = (value, postfix) => mapGrid(value, (x) => percentOp(x, postfix, false));
}

// ── criteria

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const blank = (cell: Value) => cell === null || cell === undefined || cell === '';

function wildcard(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '~' && i + 1 < pattern.length) source += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

function compare(order: number, op: string): boolean {
  switch (op) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    case '<>':
      return order !== 0;
    default:
      return order === 0;
  }
}

/** A test of one cell against a criterion as COUNTIF reads it: 5, TRUE, ">=10", "North", "N*", "<>", "". */
export function criterion(value: Value): (cell: Value) => boolean {
  if (isError(value)) return (cell) => isError(cell) && cell.error === value.error;
  if (typeof value === 'number') return (cell) => typeof cell === 'number' ? cell === value : typeof cell === 'string' && NUMERIC.test(cell) && Number(cell) === value;
  if (typeof value === 'boolean') return (cell) => cell === value;
  const text = value === null || value === undefined ? '' : String(value);
  const [, op = '=', operand = ''] = /^(<=|>=|<>|<|>|=)?([\s\S]*)$/.exec(text)!;
  if (operand !== '' && NUMERIC.test(operand)) {
    const number = Number(operand);
    return (cell) => {
      const n = typeof cell === 'number' ? cell : typeof cell === 'string' && NUMERIC.test(cell) ? Number(cell) : null;
      return n === null ? op === '<>' : compare(n - number, op);
    };
  }
  if (/^(true|false)$/i.test(operand)) {
    const flag = operand.toLowerCase() === 'true';
    return (cell) => (typeof cell === 'boolean' ? compare(cell === flag ? 0 : 1, op === '<>' ? '<>' : op === '=' ? '=' : '#') : op === '<>');
  }
  if (operand === '') return op === '<>' ? (cell) => !blank(cell) : (cell) => blank(cell);
  if (op === '=' || op === '<>') {
    const pattern = wildcard(operand);
    return (cell) => (typeof cell === 'string' && pattern.test(cell)) !== (op === '<>');
  }
  const lowered = operand.toLowerCase();
  return (cell) => typeof cell === 'string' && compare(cell.toLowerCase().localeCompare(lowered), op);
}

function flatten(value: Value): Value[] {
  return Array.isArray(value) ? (value as Grid).flat() : [value];
}

interface Ctx {
  utils: { extractRefValue(obj: unknown): { val: unknown } };
}

/** The rows of `ranges` that meet every criterion. */
function matching(pairs: Array<[Value, Value]>): boolean[] | FormulaError {
  const columns = pairs.map(([range, test]) => ({ cells: flatten(range), test: criterion(test) }));
  const size = columns[0]!.cells.length;
  if (columns.some((column) => column.cells.length !== size)) return FormulaError.VALUE;
  return Array.from({ length: size }, (_, i) => columns.every(({ cells, test }) => test(cells[i])));
}

function pairsOf(args: Value[]): Array<[Value, Value]> | FormulaError {
  if (args.length === 0 || args.length % 2 !== 0) return FormulaError.VALUE;
  const pairs: Array<[Value, Value]> = [];
  for (let i = 0; i < args.length; i += 2) pairs.push([args[i], args[i + 1]]);
  return pairs;
}

function numbersAt(range: Value, matched: boolean[]): number[] {
  const cells = flatten(range);
  const numbers: number[] = [];
  matched.forEach((yes, i) => {
    const cell = cells[i];
    if (yes && typeof cell === 'number') numbers.push(cell);
  });
  return numbers;
}

const sum = (numbers: number[]) => numbers.reduce((a, b) => a + b, 0);
const mean = (numbers: number[]) => (numbers.length === 0 ? FormulaError.DIV0 : sum(numbers) / numbers.length);

function ifs(target: Value, rest: Value[], reduce: (numbers: number[]) => Value): Value {
  const pairs = pairsOf(rest);
  if (isError(pairs)) return pairs;
  const matched = matching(pairs);
  if (isError(matched)) return matched;
  return reduce(numbersAt(target, matched));
}

/** The `*IF` and `*IFS` functions and MATCH, as the parser calls them. */
export function corrections(): Record<string, (...args: never[]) => unknown> {
  const values = (args: FunctionArg[]) => args.map((arg) => (arg.omitted ? null : arg.value));
  // SUMIF and AVERAGEIF are handed the parser and the references themselves.
  const resolved = (ctx: Ctx, args: unknown[]) => args.map((arg) => (arg === null || arg === undefined ? null : ctx.utils.extractRefValue(arg).val));
  return {
    COUNTIF: (...args: FunctionArg[]) => {
      const [range, test] = values(args);
      return countMatches([[range, test]]);
    },
    COUNTIFS: (...args: FunctionArg[]) => {
      const pairs = pairsOf(values(args));
      return isError(pairs) ? pairs : countMatches(pairs);
    },
    SUMIF: (ctx: Ctx, ...args: unknown[]) => {
      const [range, test, target] = resolved(ctx, args);
      return ifs(target ?? range, [range, test], sum);
    },
    AVERAGEIF: (ctx: Ctx, ...args: unknown[]) => {
      const [range, test, target] = resolved(ctx, args);
      return ifs(target ?? range, [range, test], mean);
    },
    SUMIFS: (...args: FunctionArg[]) => {
      const [target, ...rest] = values(args);
      return ifs(target, rest, sum);
    },
    AVERAGEIFS: (...args: FunctionArg[]) => {
      const [target, ...rest] = values(args);
      return ifs(target, rest, mean);
    },
    MAXIFS: (...args: FunctionArg[]) => {
      const [target, ...rest] = values(args);
      return ifs(target, rest, (numbers) => (numbers.length ? Math.max(...numbers) : 0));
    },
    MINIFS: (...args: FunctionArg[]) => {
      const [target, ...rest] = values(args);
      return ifs(target, rest, (numbers) => (numbers.length ? Math.min(...numbers) : 0));
    },
    MATCH: (...args: FunctionArg[]) => {
      const [wanted, range, type] = values(args);
      return match(wanted, flatten(range), type === null ? 1 : Number(type));
    },
  };
}

function countMatches(pairs: Array<[Value, Value]>): Value {
  const matched = matching(pairs);
  return isError(matched) ? matched : matched.filter(Boolean).length;
}

const rankOf = (value: Value) => (typeof value === 'number' ? 1 : typeof value === 'string' ? 2 : typeof value === 'boolean' ? 3 : 0);

/** Orders two values as a sorted sheet column does: numbers, then text (without case), then FALSE, TRUE. */
function order(a: Value, b: Value): number {
  const kinds = rankOf(a) - rankOf(b);
  if (kinds !== 0) return kinds;
  if (typeof a === 'string') return a.toLowerCase().localeCompare((b as string).toLowerCase());
  return Number(a) - Number(b);
}

function match(wanted: Value, cells: Value[], type: number): Value {
  if (type === 0) {
    const test = typeof wanted === 'string' ? criterion(wanted.replace(/^([<>=])/, '~$1')) : (cell: Value) => cell === wanted;
    const index = cells.findIndex((cell) => !blank(cell) && test(cell));
    return index < 0 ? FormulaError.NA : index + 1;
  }
  // Sorted ascending (1) or descending (-1): the last cell that is not past the wanted value.
  let found = -1;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (blank(cell) || rankOf(cell) !== rankOf(wanted)) continue;
    const cmp = order(cell, wanted);
    if (type > 0 ? cmp <= 0 : cmp >= 0) found = i;
    else break;
  }
  return found < 0 ? FormulaError.NA : found + 1;
}

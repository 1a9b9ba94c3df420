import FormulaParser, { FormulaError, type CellRef, type RangeRef } from 'fast-formula-parser';
import { correctOperators, corrections } from './corrections';
import { fillIns } from './fillIns';
import { meaningOf } from './catalogue';
import { cellAt, MAX_COLUMN, MAX_ROW, type Sheet } from './sheet';
import { functionNames, scanFormula, withoutExponents, type Structure } from './structure';

/**
 * The formula engine behind every answer about a formula: it parses a formula and evaluates it on
 * the query's data, in memory, within bounds. The parsing and evaluating library (fast-formula-
 * parser, MIT; formulajs, MIT, for the common functions it lacks) stays behind this module, so it
 * can be replaced without touching the answers.
 */

export type FormulaScalar = number | string | boolean | null;
export type FormulaValue = FormulaScalar | FormulaScalar[][];

/** What every answer says of a formula (decisions.md, "The assistant"). */
export interface FormulaCheck {
  /** The formula as checked, with its leading `=`. */
  text: string;
  /** It parsed. */
  valid: boolean;
  /** Its value on the data: null when it parsed to an error or did not parse. */
  value: FormulaValue;
  /** A sheet error code (#DIV/0!, #N/A, #NAME?, #NULL!, #NUM!, #REF!, #VALUE!, #ERROR! when it does not parse) or one of the engine's: `unsupported_function`, `volatile_function`, `too_complex`, `range_too_large`. */
  error: string | null;
  /** The ranges it reads, as written (A1 notation, without `$`). */
  references: string[];
  /** The functions it calls, in the order they first appear. */
  functions: string[];
}

/** Where and why a formula does not parse, or why the engine refused it. */
export interface Problem {
  /** 1-based offset in the formula as shown (after its `=`), or null when it is about the whole. */
  position: number | null;
  reason: string;
}

export interface CheckedFormula extends FormulaCheck {
  problem: Problem | null;
  structure: Structure;
}

/** Excel allows 64 nested levels of functions. */
export const MAX_NESTING = 64;
/** A range larger than this (other than whole columns and rows, read within the data) is refused. */
export const MAX_RANGE_CELLS = 100_000;
/** Cells one evaluation may read in all, and its time: far above any formula on 10,000 cells. */
export const MAX_CELLS_READ = 2_000_000;
export const MAX_EVALUATION_MS = 1_000;
/** Excel's longest text. */
export const MAX_TEXT = 32_767;

/** Functions whose value changes on every recalculation: a value shown for them would not hold. */
export const VOLATILE = ['NOW', 'TODAY', 'RAND', 'RANDBETWEEN', 'RANDARRAY'];

/** The one sheet a formula can read: the query's data. */
const SHEET = 'Sheet1';

/** Ends an evaluation that went over a bound; its code becomes the answer's error. */
class Stop extends Error {
  constructor(
    readonly code: 'too_complex' | 'range_too_large',
    readonly reason: string,
  ) {
    super(reason);
  }
}

interface Run {
  sheet: Sheet;
  cellsRead: number;
  deadline: number;
}

/** The evaluation under way: evaluation is synchronous, so one at a time per process. */
let current: Run | null = null;

function tick(run: Run, cells: number) {
  run.cellsRead += cells;
  if (run.cellsRead > MAX_CELLS_READ) throw new Stop('too_complex', `it reads more than ${MAX_CELLS_READ.toLocaleString('en-US')} cells`);
  if (Date.now() > run.deadline) throw new Stop('too_complex', `it takes longer than ${MAX_EVALUATION_MS} ms to evaluate`);
}

function readCell(ref: CellRef): unknown {
  const run = current!;
  if (ref.sheet && ref.sheet !== SHEET) return FormulaError.REF;
  tick(run, 1);
  return cellAt(run.sheet, ref.row, ref.col);
}

function readRange(ref: RangeRef): unknown[][] {
  const run = current!;
  const { sheet } = run;
  if (ref.sheet && ref.sheet !== SHEET) return [[FormulaError.REF]];
  // A whole column (A:A) or row (3:3) is read within the data, as far as the data reaches.
  const lastRow = ref.to.row >= MAX_ROW ? Math.max(ref.from.row, sheet.top + sheet.rows - 1) : ref.to.row;
  const lastColumn = ref.to.col >= MAX_COLUMN ? Math.max(ref.from.col, sheet.left + sheet.columns - 1) : ref.to.col;
  const rows = lastRow - ref.from.row + 1;
  const columns = lastColumn - ref.from.col + 1;
  if (rows * columns > MAX_RANGE_CELLS) {
    throw new Stop('range_too_large', `a range of ${(rows * columns).toLocaleString('en-US')} cells is more than the ${MAX_RANGE_CELLS.toLocaleString('en-US')} a formula may read here`);
  }
  tick(run, rows * columns);
  const values: unknown[][] = [];
  for (let row = ref.from.row; row <= lastRow; row++) {
    const line: unknown[] = [];
    for (let column = ref.from.col; column <= lastColumn; column++) line.push(cellAt(sheet, row, column));
    values.push(line);
  }
  return values;
}

/** Text longer than a sheet allows, or an identity matrix of a million rows, is not a value to show. */
const bounded: Record<string, (...args: Array<{ value: unknown }>) => void> = {
  REPT: (text, times) => {
    if (String(text?.value ?? '').length * Number(times?.value ?? 0) > MAX_TEXT) throw FormulaError.VALUE;
  },
  MUNIT: (size) => {
    if (Number(size?.value ?? 0) > 1000) throw FormulaError.NUM;
  },
};

function makeParser(isTest: boolean): FormulaParser {
  correctOperators();
  const parser = new FormulaParser(
    {
      onCell: readCell,
      onRange: readRange,
      // A defined name: the data has none.
      onVariable: () => {
        throw FormulaError.NAME;
      },
    },
    isTest,
  );
  Object.assign(parser.functions, fillIns(parser.funsNeedContext), corrections());
  // Every call counts toward the bounds, so a formula of many calls stops on time too.
  for (const [name, fn] of Object.entries(parser.functions)) {
    const check = bounded[name];
    const skip = parser.funsNeedContext.includes(name) ? 1 : 0;
    parser.functions[name] = (...args: unknown[]) => {
      if (current) tick(current, 1);
      check?.(...(args.slice(skip) as Array<{ value: unknown }>));
      return fn(...args);
    };
  }
  return parser;
}

let evaluator: FormulaParser | null = null;
/** A second parser that answers 0 for functions it cannot call: it checks the syntax of a formula that holds one. */
let syntaxChecker: FormulaParser | null = null;

/** The functions the engine evaluates. */
export function supportedFunctions(): ReadonlySet<string> {
  evaluator ??= makeParser(false);
  return supported ??= new Set(Object.keys(evaluator.functions).filter((name) => !STUBS.has(name)));
}
let supported: Set<string> | null = null;
/** Names the library lists but does not implement (it answers "not implemented"). */
const STUBS = new Set(['CELL', 'INFO', 'PHONETIC', 'LENB', 'AGGREGATE', 'MINVERSE', 'SUBTOTAL', 'FILTERXML', 'WEBSERVICE', 'ENCODEURL', 'FORECAST.ETS', 'FORECAST.ETS.CONFINT', 'FORECAST.ETS.SEASONALITY', 'FORECAST.ETS.STAT', 'LINEST', 'LOGEST', 'TREND', 'PROB', 'PERCENTILE.EXC', 'PERCENTRANK.EXC', 'PERCENTRANK.INC', 'QUARTILE.EXC', 'MODE.MULT', 'SKEW', 'SKEW.P', 'STDEVA', 'STDEVPA', 'VARA', 'VARPA', 'STEYX', 'T.TEST', 'Z.TEST', 'PERMUT', 'PERMUTATIONA']);

const PARSE_POSITION = /Error at position \d+:(\d+)\n([^\n]*)/;

function parseProblem(error: FormulaError, offset: number, length: number): Problem {
  const match = PARSE_POSITION.exec(error.message);
  if (!match) return { position: null, reason: 'the formula could not be read' };
  // At the end of the text the library points at its last token, not past it.
  const atEnd = /but found --> '' <--$/.test(match[2]!);
  const reason = match[2]!
    .replace(/^unexpected character: ->(.)<- at offset: \d+, skipped \d+ characters\./, 'the character "$1" is not expected here')
    .replace(/^Expecting token of type --> (\w+) <-- but found --> '(.*)' <--$/, (_, token: string, found: string) => `expected ${TOKEN_NAMES[token] ?? token} but found ${found === '' ? 'the end of the formula' : `"${found}"`}`)
    .replace(/^Redundant input, expecting EOF but found: (.*)$/, 'the formula should end before "$1"')
    .replace(/^Expecting: one of these possible Token sequences:.*$/, 'a value, a reference or a function is missing');
  return { position: (atEnd ? length + 1 : Number(match[1])) + offset, reason };
}

const TOKEN_NAMES: Record<string, string> = { CloseParen: 'a closing parenthesis ")"', OpenParen: 'an opening parenthesis "("', CloseCurlyParen: 'a closing brace "}"' };

function toScalar(result: unknown): FormulaScalar {
  if (result instanceof FormulaError) return result.error;
  // A blank cell reads 0, as it shows in a sheet.
  if (result === undefined || result === null) return 0;
  if (typeof result === 'number') return Object.is(result, -0) ? 0 : result;
  if (typeof result === 'string' || typeof result === 'boolean') return result;
  return String(result);
}

function toValue(result: unknown): FormulaValue {
  if (!Array.isArray(result)) return toScalar(result);
  const rows = result.map((row: unknown) => (Array.isArray(row) ? row.map(toScalar) : [toScalar(row)]));
  return rows.length === 1 && rows[0]!.length === 1 ? rows[0]![0]! : rows;
}

/** The formula's body without its `=` and the outer spaces; and how many characters went before it. */
export function formulaBody(input: string): { body: string; offset: number } {
  const trimmed = input.trim();
  return trimmed.startsWith('=') ? { body: trimmed.slice(1).trimStart(), offset: 1 } : { body: trimmed, offset: 0 };
}

/** Parses `input` (with or without its `=`) and evaluates it on the sheet, within the bounds (and by `deadline`, a time in ms, when given). */
export function checkFormula(input: string, sheet: Sheet, deadline = Infinity): CheckedFormula {
  const { body } = formulaBody(input);
  const text = `=${body}`;
  const structure = scanFormula(body);
  const base = { text, references: [...new Set(structure.references.map((r) => r.text))], functions: functionNames(structure), structure };
  const refused = (valid: boolean, error: string, problem: Problem | null): CheckedFormula => ({ ...base, valid, value: null, error, problem });
  if (body === '') return refused(false, '#ERROR!', { position: null, reason: 'the formula is empty' });
  if (structure.depth > MAX_NESTING) {
    return refused(false, 'too_complex', { position: null, reason: `it nests ${structure.depth} levels deep; a sheet allows ${MAX_NESTING}` });
  }
  const known = supportedFunctions();
  const unsupported = base.functions.find((name) => !known.has(name));
  const volatile = base.functions.find((name) => VOLATILE.includes(name));
  const elsewhere = structure.references.find((reference) => reference.sheet !== null);
  // A formula the engine cannot evaluate still has its syntax checked.
  const parser = unsupported || volatile || elsewhere ? (syntaxChecker ??= makeParser(true)) : (evaluator ??= makeParser(false));
  const run: Run = { sheet, cellsRead: 0, deadline: Math.min(deadline, Date.now() + MAX_EVALUATION_MS) };
  let result: unknown;
  current = run;
  try {
    result = parser.parse(withoutExponents(body), { row: sheet.top + sheet.rows, col: sheet.left, sheet: SHEET }, true);
  } catch (error) {
    const cause = error instanceof FormulaError ? error.details : error;
    if (cause instanceof Stop) return refused(true, cause.code, { position: null, reason: cause.reason });
    if (cause instanceof RangeError) return refused(true, 'too_complex', { position: null, reason: 'it is too deeply nested to evaluate' });
    if (error instanceof FormulaError && PARSE_POSITION.test(error.message)) return refused(false, '#ERROR!', parseProblem(error, 1, body.length));
    // A formula the engine would not evaluate anyway is answered for that reason below.
    if (!(unsupported || volatile || elsewhere)) {
      if (error instanceof FormulaError && /is not implemented/.test(error.message)) return unsupportedAnswer(refused, error.message);
      return refused(true, '#VALUE!', { position: null, reason: 'the engine could not evaluate it' });
    }
  } finally {
    current = null;
    // The syntax checker notes every unknown name it met; a stream of made-up names must not pile up.
    parser.logs.length = 0;
  }
  if (unsupported) {
    return meaningOf(unsupported)
      ? refused(true, 'unsupported_function', { position: null, reason: `the engine does not evaluate ${unsupported}` })
      : refused(true, '#NAME?', { position: null, reason: `${unsupported} is not a spreadsheet function` });
  }
  if (volatile) {
    return refused(true, 'volatile_function', { position: null, reason: `${volatile} changes value on every recalculation, so no value is shown for it` });
  }
  if (elsewhere) {
    return refused(true, '#REF!', { position: elsewhere.start + 2, reason: `it reads the sheet "${elsewhere.sheet}", and the selected data is the only sheet the engine has` });
  }
  // A single cell of an array result is that cell's value, an error included.
  const single = Array.isArray(result) && result.length === 1 && Array.isArray(result[0]) && result[0].length === 1 ? (result[0] as unknown[])[0] : result;
  if (single instanceof FormulaError) return { ...base, valid: true, value: null, error: single.error, problem: null };
  const value = toValue(single);
  return { ...base, valid: true, value, error: null, problem: null };
}

function unsupportedAnswer(refused: (valid: boolean, error: string, problem: Problem | null) => CheckedFormula, message: string) {
  const name = /Function (\S+) is not implemented/.exec(message)?.[1] ?? 'a function';
  return refused(true, 'unsupported_function', { position: null, reason: `the engine does not evaluate ${name}` });
}

/** The answer's `formula` field: the check without the engine's working. */
export function publicCheck(checked: CheckedFormula): FormulaCheck {
  const { text, valid, value, error, references, functions } = checked;
  return { text, valid, value, error, references, functions };
}

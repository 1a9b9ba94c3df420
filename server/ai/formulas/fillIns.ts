import * as formulajs from '@formulajs/formulajs';
import { FormulaError, type FunctionArg } from 'fast-formula-parser';

/**
 * Common functions the parser's library lacks (MAX, MIN, MATCH, SUMIFS, …), taken from formulajs
 * (MIT), which implements them with Excel's documented behaviour. Each is called with the values
 * of its arguments (a range as a 2-D array); an error it returns becomes the sheet error.
 */
const FROM_FORMULAJS: Record<string, string> = {
  MAX: 'MAX',
  // The library's AVERAGE of no numbers, SEARCH, ISOWEEKNUM of a Sunday, FIXED to tens and LOG of a
  // negative number depart from the documentation; formulajs's follow it.
  AVERAGE: 'AVERAGE',
  SEARCH: 'SEARCH',
  ISOWEEKNUM: 'ISOWEEKNUM',
  FIXED: 'FIXED',
  LOG: 'LOG',
  MIN: 'MIN',
  MAXA: 'MAXA',
  MINA: 'MINA',
  COUNTA: 'COUNTA',
  COUNTBLANK: 'COUNTBLANK',
  MEDIAN: 'MEDIAN',
  LOOKUP: 'LOOKUP',
  LARGE: 'LARGE',
  SMALL: 'SMALL',
  RANK: 'RANK.EQ',
  'RANK.EQ': 'RANK.EQ',
  'RANK.AVG': 'RANK.AVG',
  STDEV: 'STDEV.S',
  'STDEV.S': 'STDEV.S',
  'STDEV.P': 'STDEV.P',
  STDEVP: 'STDEVP',
  VAR: 'VAR.S',
  'VAR.S': 'VAR.S',
  'VAR.P': 'VAR.P',
  VARP: 'VARP',
  MODE: 'MODE.SNGL',
  'MODE.SNGL': 'MODE.SNGL',
  PERCENTILE: 'PERCENTILE.INC',
  'PERCENTILE.INC': 'PERCENTILE.INC',
  QUARTILE: 'QUARTILE.INC',
  'QUARTILE.INC': 'QUARTILE.INC',
  UPPER: 'UPPER',
  SUBSTITUTE: 'SUBSTITUTE',
  VALUE: 'VALUE',
  TEXTJOIN: 'TEXTJOIN',
  CHOOSE: 'CHOOSE',
  SWITCH: 'SWITCH',
  PMT: 'PMT',
  FV: 'FV',
  PV: 'PV',
  NPV: 'NPV',
  NPER: 'NPER',
  SLOPE: 'SLOPE',
  PEARSON: 'PEARSON',
  RSQ: 'RSQ',
  ISODD: 'ISODD',
  TRIMMEAN: 'TRIMMEAN',
};

type Fn = (...args: unknown[]) => unknown;

function formulajsFunction(path: string): Fn {
  const fn = path.split('.').reduce<unknown>((scope, key) => (scope as Record<string, unknown>)[key], formulajs);
  if (typeof fn !== 'function') throw new Error(`formulajs has no ${path}`);
  return fn as Fn;
}

const ERRORS = ['#DIV/0!', '#N/A', '#NAME?', '#NULL!', '#NUM!', '#REF!', '#VALUE!'];

/** formulajs answers errors as Error objects whose message is the code. */
function settle(result: unknown): unknown {
  if (result instanceof Error) throw new FormulaError(ERRORS.includes(result.message) ? result.message : '#VALUE!');
  if (typeof result === 'number' && !Number.isFinite(result)) throw FormulaError.NUM;
  return result;
}

/** The fill-ins as the parser takes them; `needsContext` names the ones it calls with itself first. */
export function fillIns(needsContext: readonly string[]): Record<string, (...args: FunctionArg[]) => unknown> {
  const table: Record<string, (...args: FunctionArg[]) => unknown> = {};
  for (const [name, path] of Object.entries(FROM_FORMULAJS)) {
    const fn = formulajsFunction(path);
    const skip = needsContext.includes(name) ? 1 : 0;
    table[name] = (...args: FunctionArg[]) => settle(fn(...args.slice(skip).map((arg) => (arg.omitted ? undefined : arg.value))));
  }
  return table;
}

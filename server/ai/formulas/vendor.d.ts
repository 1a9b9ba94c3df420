// fast-formula-parser ships no types: the parts server/ai/formulas/engine.ts uses.
declare module 'fast-formula-parser' {
  export interface CellRef {
    sheet?: string;
    row: number;
    col: number;
  }
  export interface RangeRef {
    sheet?: string;
    from: { row: number; col: number };
    to: { row: number; col: number };
  }
  export interface FunctionArg {
    value: unknown;
    isArray: boolean;
    isRangeRef?: boolean;
    isCellRef?: boolean;
    omitted?: boolean;
  }
  export class FormulaError extends Error {
    constructor(error: string, msg?: string, details?: unknown);
    readonly error: string;
    readonly details?: unknown;
    static readonly DIV0: FormulaError;
    static readonly NA: FormulaError;
    static readonly NAME: FormulaError;
    static readonly NULL: FormulaError;
    static readonly NUM: FormulaError;
    static readonly REF: FormulaError;
    static readonly VALUE: FormulaError;
  }
  interface Config {
    functions?: Record<string, (...args: FunctionArg[]) => unknown>;
    onVariable?: (name: string, sheet: string) => unknown;
    onCell?: (ref: CellRef) => unknown;
    onRange?: (ref: RangeRef) => unknown[][];
  }
  class FormulaParser {
    constructor(config?: Config, isTest?: boolean);
    functions: Record<string, (...args: unknown[]) => unknown>;
    funsNeedContext: string[];
    /** The unknown function names a test-mode parser met. */
    logs: string[];
    parse(text: string, position: { row: number; col: number; sheet: string }, allowReturnArray?: boolean): unknown;
    static readonly FormulaError: typeof FormulaError;
  }
  export default FormulaParser;
}

declare module 'fast-formula-parser/formulas/operators' {
  type Op = (value1: unknown, infix: string, value2: unknown, isArray1: boolean, isArray2: boolean) => unknown;
  const operators: {
    Infix: { compareOp: Op; concatOp: Op; mathOp: Op };
    Prefix: { unaryOp: (prefixes: string[], value: unknown, isArray: boolean) => unknown };
    Postfix: { percentOp: (value: unknown, postfix: string, isArray: boolean) => unknown };
  };
  export default operators;
}

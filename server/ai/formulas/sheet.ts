import type { Cell } from '../provider';

/**
 * The query's `data` as a sheet: `data[0][0]` is A1, or the first cell of the query's `range`
 * ("C3:F40"). Rows and columns here are 1-based sheet coordinates, as in A1 notation.
 */
export interface Sheet {
  data: Cell[][];
  /** The sheet row and column of `data[0][0]`. */
  top: number;
  left: number;
  /** Rows and columns of the data (its widest row). */
  rows: number;
  columns: number;
  /** True when the first row holds the column headers (see `hasHeaderRow`). */
  headers: boolean;
}

/** The largest sheet Excel and Sheets allow: whole-column references reach this row. */
export const MAX_ROW = 1_048_576;
export const MAX_COLUMN = 16_384;

const NUMERIC_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** A date written as text the way sheets export them: 2024-03-15, 15/03/2024, 3/15/2024. */
const DATE_TEXT = /^(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})([ T]\d{1,2}:\d{2}(:\d{2})?)?$/;

/** A number, or text that is exactly a decimal number ("12.5", "-3e2"); null otherwise. */
export function numericValue(cell: Cell | undefined): number | null {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'string' && NUMERIC_TEXT.test(cell.trim())) return Number(cell.trim());
  return null;
}

export function isBlank(cell: Cell | undefined): boolean {
  return cell === undefined || cell === null || (typeof cell === 'string' && cell.trim() === '');
}

/** The longest row's length. A loop, not `Math.max(...rows)`: spreading 100,000 rows overflows the stack. */
export function widest(data: Cell[][]): number {
  let width = 0;
  for (const row of data) width = Math.max(width, row.length);
  return width;
}

const isHeaderText = (cell: Cell | undefined) => typeof cell === 'string' && !isBlank(cell) && numericValue(cell) === null && !DATE_TEXT.test(cell.trim());

/**
 * The first row counts as headers when it is all text and a column below it holds numbers or
 * dates (decisions.md, "The assistant"): a row of labels above a row of labels is data.
 */
export function hasHeaderRow(data: Cell[][]): boolean {
  const first = data[0];
  if (!first || data.length < 2) return false;
  const width = widest(data);
  if (first.length !== width || !first.every(isHeaderText)) return false;
  for (let row = 1; row < data.length; row++) {
    for (const cell of data[row]!) {
      if (numericValue(cell) !== null || (typeof cell === 'string' && DATE_TEXT.test(cell.trim()))) return true;
    }
  }
  return false;
}

/** Spreadsheet column letters: 1 → A, 26 → Z, 27 → AA. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** A → 1, Z → 26, AA → 27. */
export function columnNumber(letters: string): number {
  let n = 0;
  for (const char of letters.toUpperCase()) n = n * 26 + (char.charCodeAt(0) - 64);
  return n;
}

const CELL = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/;

/** The row and column of "C3" (or "$C$3"); null for anything else. */
export function parseCell(text: string): { row: number; column: number } | null {
  const match = CELL.exec(text.trim());
  if (!match) return null;
  const row = Number(match[2]);
  const column = columnNumber(match[1]!);
  return row >= 1 && row <= MAX_ROW && column <= MAX_COLUMN ? { row, column } : null;
}

/** The top-left cell of a range such as "C3:F40" (or a single cell); null when it is not one. */
export function rangeStart(range: string): { row: number; column: number } | null {
  const [from, to, extra] = range.split(':');
  if (extra !== undefined || !from) return null;
  const start = parseCell(from);
  const end = to === undefined ? start : parseCell(to);
  if (!start || !end) return null;
  return { row: Math.min(start.row, end.row), column: Math.min(start.column, end.column) };
}

export function makeSheet(data: Cell[][], range?: string): Sheet {
  const start = range ? rangeStart(range) : null;
  return { data, top: start?.row ?? 1, left: start?.column ?? 1, rows: data.length, columns: widest(data), headers: hasHeaderRow(data) };
}

/** The cell at a sheet row and column, or null outside the data. */
export function cellAt(sheet: Sheet, row: number, column: number): Cell {
  return sheet.data[row - sheet.top]?.[column - sheet.left] ?? null;
}

/** The header of a sheet column, when the data has a header row and reaches that column. */
export function headerOf(sheet: Sheet, column: number): string | null {
  if (!sheet.headers) return null;
  const cell = sheet.data[0]![column - sheet.left];
  return typeof cell === 'string' ? cell : null;
}

/** The A1 name of a sheet cell. */
export function cellName(row: number, column: number): string {
  return `${columnLetters(column)}${row}`;
}

import type { Cell } from '../provider';
import { formatNumber, plural } from './format';
import { columnLetters, isBlank, numericValue, type Sheet } from './sheet';

/** The most frequent text values shown for a column, and the outliers listed at most. */
const TOP_VALUES = 3;
const MAX_OUTLIERS = 5;
const MAX_CORRELATIONS = 10;
/** Correlations at least this strong (either sign) are reported. */
export const STRONG_CORRELATION = 0.7;

interface Column {
  name: string;
  values: number;
  blanks: number;
  /** The numeric cells with their index among the data rows below the headers. */
  numbers: Array<{ row: number; value: number }>;
  counts: Map<string, number>;
  /** The column's numbers by row, NaN where a cell holds none: correlations walk two of these. */
  dense: Float64Array;
}

/** A quartile as QUARTILE.INC computes it: linear between the two nearest ranks. */
function quartile(sorted: number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (position - below) * (sorted[above]! - sorted[below]!);
}

/** The least-squares slope of `ys` against `xs`. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

/** Pearson's r over the rows where both columns hold numbers; null with fewer than 3 such rows or no spread. */
function correlation(a: Column, b: Column): number | null {
  const xs = a.dense;
  const ys = b.dense;
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < xs.length; i++) {
    if (Number.isNaN(xs[i]!) || Number.isNaN(ys[i]!)) continue;
    n += 1;
    sx += xs[i]!;
    sy += ys[i]!;
  }
  if (n < 3) return null;
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    if (Number.isNaN(xs[i]!) || Number.isNaN(ys[i]!)) continue;
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

function readColumns(sheet: Sheet): Column[] {
  const rows = sheet.headers ? sheet.data.slice(1) : sheet.data;
  const columns: Column[] = [];
  for (let c = 0; c < sheet.columns; c++) {
    const letter = columnLetters(sheet.left + c);
    const header = sheet.headers ? sheet.data[0]![c] : undefined;
    const column: Column = {
      name: header === undefined ? letter : `${letter} "${String(header)}"`,
      values: 0,
      blanks: 0,
      numbers: [],
      counts: new Map(),
      dense: new Float64Array(rows.length).fill(NaN),
    };
    rows.forEach((row, index) => {
      const cell: Cell | undefined = row[c];
      if (isBlank(cell)) {
        column.blanks += 1;
        return;
      }
      column.values += 1;
      const key = typeof cell === 'string' ? cell.trim() : String(cell);
      column.counts.set(key, (column.counts.get(key) ?? 0) + 1);
      const value = numericValue(cell);
      if (value !== null) {
        column.numbers.push({ row: index, value });
        column.dense[index] = value;
      }
    });
    columns.push(column);
  }
  return columns;
}

function describeColumn(column: Column, firstDataRow: number): string {
  const { numbers } = column;
  let line = `${column.name}: ${plural(column.values, 'value')}, ${numbers.length} numeric, ${plural(column.blanks, 'blank')}`;
  if (numbers.length > 0) {
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const { value } of numbers) {
      sum += value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    line += `; sum ${formatNumber(sum)}, mean ${formatNumber(sum / numbers.length)}, min ${formatNumber(min)}, max ${formatNumber(max)}`;
  }
  line += `; ${column.counts.size} distinct.`;
  const texts = [...column.counts].filter(([value]) => numericValue(value) === null);
  if (texts.length > 0) {
    const top = texts.filter(([, count]) => count > 1).sort((a, b) => b[1] - a[1]).slice(0, TOP_VALUES);
    line += top.length > 0 ? ` Most frequent: ${top.map(([value, count]) => `"${value}" (${count})`).join(', ')}.` : ' No text value repeats.';
  }
  if (numbers.length >= 3) {
    const trend = slope(
      numbers.map((n) => n.row),
      numbers.map((n) => n.value),
    );
    const direction = trend > 0 ? 'rising' : trend < 0 ? 'falling' : 'flat';
    line += ` Trend in row order: ${direction} (slope ${formatNumber(Number(trend.toPrecision(4)))} a row).`;
  }
  if (numbers.length >= 4) {
    const sorted = numbers.map((n) => n.value).sort((a, b) => a - b);
    const q1 = quartile(sorted, 0.25);
    const q3 = quartile(sorted, 0.75);
    const fence = 1.5 * (q3 - q1);
    const outliers = numbers.filter(({ value }) => value < q1 - fence || value > q3 + fence);
    const listed = outliers.slice(0, MAX_OUTLIERS).map(({ row, value }) => `${formatNumber(value)} (row ${firstDataRow + row})`);
    const more = outliers.length > MAX_OUTLIERS ? ` and ${outliers.length - MAX_OUTLIERS} more` : '';
    line += ` Outliers (beyond 1.5 × IQR): ${listed.length > 0 ? listed.join(', ') + more : 'none'}.`;
  }
  return line;
}

/**
 * Descriptive statistics of every column: count, numeric count, sum, mean, min, max, blanks,
 * distinct values, the most frequent text values, a trend in row order and outliers (1.5 × IQR)
 * of numeric columns, and the strong correlations between numeric columns (|r| ≥ 0.7).
 */
export function describeData(sheet: Sheet): string {
  if (sheet.columns === 0) return 'No data came with this request, so there is nothing to analyse: select a range and ask again.';
  const rows = sheet.headers ? sheet.rows - 1 : sheet.rows;
  const columns = readColumns(sheet);
  const firstDataRow = sheet.top + (sheet.headers ? 1 : 0);
  const lines = [
    `Descriptive statistics of ${plural(rows, 'row')} × ${plural(sheet.columns, 'column')}` +
      `${sheet.headers ? ' (the first row is used as headers)' : ''}. ` +
      'The offline assistant computes these from the data; it does not read the question.',
    ...columns.map((column) => describeColumn(column, firstDataRow)),
  ];
  const numeric = columns.filter((column) => column.numbers.length >= 3);
  const strong: Array<{ pair: string; r: number }> = [];
  for (let i = 0; i < numeric.length; i++) {
    for (let j = i + 1; j < numeric.length; j++) {
      const r = correlation(numeric[i]!, numeric[j]!);
      if (r !== null && Math.abs(r) >= STRONG_CORRELATION) strong.push({ pair: `${numeric[i]!.name} and ${numeric[j]!.name}`, r });
    }
  }
  if (numeric.length >= 2) {
    // The strongest first; a wide sheet of alike columns lists ten and counts the rest.
    const listed = strong
      .sort((a, b) => Math.abs(b.r) - Math.abs(a.r))
      .slice(0, MAX_CORRELATIONS)
      .map(({ pair, r }) => `${pair} (r = ${r.toFixed(2)})`);
    const more = strong.length > MAX_CORRELATIONS ? `; and ${plural(strong.length - MAX_CORRELATIONS, 'more pair')}` : '';
    lines.push(strong.length > 0 ? `Strong correlations (|r| ≥ ${STRONG_CORRELATION}): ${listed.join('; ')}${more}.` : `No strong correlations (|r| ≥ ${STRONG_CORRELATION}) between numeric columns.`);
  }
  return lines.join('\n');
}

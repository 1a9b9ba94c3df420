import type { FormulaValue } from './engine';

/** Twelve significant digits: enough for any cell, and 0.1 + 0.2 reads 0.3. */
export function formatNumber(value: number): string {
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

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A formula's value as a sheet would show it: numbers, "text", TRUE/FALSE, and arrays row by row. */
export function formatValue(value: FormulaValue): string {
  if (Array.isArray(value)) {
    const rows = value.slice(0, 5).map((row) => `{${row.slice(0, 8).map(formatValue).join(', ')}${row.length > 8 ? ', …' : ''}}`);
    return `an array of ${plural(value.length, 'row')} × ${plural(value[0]?.length ?? 0, 'column')}: ${rows.join(' ')}${value.length > 5 ? ' …' : ''}`;
  }
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value === null) return '(nothing)';
  return `"${value}"`;
}

import { meaningOf } from './catalogue';
import { checkFormula, MAX_EVALUATION_MS, type CheckedFormula } from './engine';
import { formatValue, plural } from './format';
import { columnLetters, headerOf, parseCell, type Sheet } from './sheet';
import { computationOrder } from './structure';

/** Sub-steps shown at most: a formula of a hundred calls is explained by its first fifty. */
const MAX_STEPS = 50;

/** The columns a reference reads, with their headers: "column E "Revenue"", "columns A to C (Region, Rep, Units)". */
function describeReference(text: string, sheet: Sheet): string {
  const [from, to] = text.split(':');
  const column = (part: string | undefined) => {
    if (part === undefined) return null;
    const cell = parseCell(part);
    if (cell) return cell.column;
    return /^[A-Za-z]{1,3}$/.test(part) ? [...part.toUpperCase()].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0) : null;
  };
  const first = column(from);
  const last = column(to ?? from);
  if (first === null || last === null) return text;
  const columns = Array.from({ length: Math.min(last - first + 1, 12) }, (_, i) => first + i);
  const named = columns.map((c) => headerOf(sheet, c)).filter((h): h is string => h !== null);
  if (first === last) {
    const header = headerOf(sheet, first);
    return `${text}: column ${columnLetters(first)}${header !== null ? ` "${header}"` : ''}`;
  }
  return `${text}: columns ${columnLetters(first)} to ${columnLetters(last)}${named.length > 0 ? ` (${named.join(', ')}${last - first + 1 > 12 ? ', …' : ''})` : ''}`;
}

/** The value one call computes, evaluated on its own; null when it cannot stand alone. */
function stepValue(checked: CheckedFormula, start: number, end: number, sheet: Sheet, deadline: number): string | null {
  const body = checked.text.slice(1);
  const piece = body.slice(start, end + 1);
  if (piece === body) return checked.error === null ? formatValue(checked.value) : checked.error;
  if (Date.now() >= deadline) return null;
  const step = checkFormula(piece, sheet, deadline);
  if (!step.valid) return null;
  return step.error === null ? formatValue(step.value) : step.error;
}

/** Where a formula stops parsing, with a caret under the place. */
function pointAt(text: string, position: number): string {
  return `    ${text}\n    ${' '.repeat(Math.max(0, position - 1))}^`;
}

/**
 * The offline explanation of a formula: each function with its meaning, the ranges it reads with
 * their headers, the order it computes in, and its value on the data; where and why it does not parse.
 */
export function explainFormula(checked: CheckedFormula, sheet: Sheet): string {
  const { text } = checked;
  if (!checked.valid) {
    const where = checked.problem?.position != null ? `at position ${checked.problem.position}, ` : '';
    const lines = [`The formula ${text} does not parse: ${where}${checked.problem?.reason ?? 'it could not be read'}.`];
    if (checked.problem?.position != null) lines.push(pointAt(text, checked.problem.position));
    return lines.join('\n');
  }
  const lines: string[] = [];
  if (checked.error === null) lines.push(`${text} gives ${formatValue(checked.value)} on the selected data.`);
  else if (checked.problem) lines.push(`${text} parses, but has no value here (${checked.error}): ${checked.problem.reason}.`);
  else lines.push(`${text} gives the error ${checked.error} on the selected data.`);
  if (checked.functions.length > 0) {
    lines.push('Functions:');
    for (const name of checked.functions) lines.push(`- ${name}: ${meaningOf(name) ?? 'not a function Excel or Sheets knows'}.`);
  }
  if (checked.references.length > 0) {
    lines.push(sheet.columns > 0 ? 'Ranges it reads:' : 'Ranges it reads (no data came with the request):');
    for (const reference of checked.references) lines.push(`- ${describeReference(reference, sheet)}`);
  }
  const order = computationOrder(checked.structure);
  if (order.length > 0 && checked.error !== 'unsupported_function' && checked.error !== 'too_complex') {
    lines.push('How it computes, innermost first:');
    // The steps share one evaluation's time: past it, the rest are listed without their values.
    const deadline = Date.now() + MAX_EVALUATION_MS;
    order.slice(0, MAX_STEPS).forEach((call, i) => {
      const body = checked.text.slice(1);
      const piece = body.slice(call.start, call.end + 1);
      const value = stepValue(checked, call.start, call.end, sheet, deadline);
      lines.push(`${i + 1}. ${piece}${value !== null ? ` → ${value}` : ''}`);
    });
    if (order.length > MAX_STEPS) lines.push(`… and ${plural(order.length - MAX_STEPS, 'more step')}.`);
    if (!isSingleCall(checked, order.at(-1))) lines.push(`${order.length + 1}. The operators around them give ${checked.error ?? formatValue(checked.value)}.`);
  }
  return lines.join('\n');
}

/** True when the whole formula is the last call (nothing is computed after it). */
function isSingleCall(checked: CheckedFormula, last: { start: number; end: number } | undefined): boolean {
  return last !== undefined && last.start === 0 && last.end === checked.text.length - 2;
}

import { checkFormula, type FormulaValue } from '../../server/ai/formulas/engine';
import { makeSheet } from '../../server/ai/formulas/sheet';
import { CORPUS, TABLES, type Expected } from '../fixtures/formulaCorpus';

/** Decimals a number is written with: a documented value such as 0.305556 is rounded to them. */
function decimals(value: number): number {
  const text = String(value);
  return text.includes('e') ? 0 : (text.split('.')[1]?.length ?? 0);
}

function agrees(actual: FormulaValue, error: string | null, expected: Expected): boolean {
  if (typeof expected === 'object' && !Array.isArray(expected)) return error === expected.error;
  if (error !== null) return false;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((row, r) => row.every((cell, c) => agrees(actual[r]![c]!, null, cell)));
  }
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') return false;
    const places = decimals(expected);
    // Rounded to the decimals written (documented examples), or equal but for float noise.
    const tolerance = places > 0 && places < 10 ? 0.5 * 10 ** -places : 0;
    return Math.abs(actual - expected) <= Math.max(tolerance, 1e-9 * Math.max(1, Math.abs(expected)));
  }
  return actual === expected;
}

describe('the formula engine on the corpus', () => {
  it('holds at least 300 formulas over at least 5 tables', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    expect(new Set(CORPUS.map(([table]) => table)).size).toBeGreaterThanOrEqual(5);
  });

  it('agrees with every expected value, and says unsupported_function for what it does not evaluate', () => {
    const sheets = Object.fromEntries(Object.entries(TABLES).map(([name, data]) => [name, makeSheet(data)]));
    const disagreements = CORPUS.flatMap(([table, formula, expected]) => {
      const { value, error } = checkFormula(formula, sheets[table]!);
      return agrees(value, error, expected) ? [] : [{ table, formula, expected, value, error }];
    });
    expect(disagreements).toEqual([]);
  });
});

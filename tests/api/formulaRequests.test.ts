import { offlineAnswer } from '../../server/ai/offlineAnswer';
import { TABLES } from '../fixtures/formulaCorpus';
import { REQUESTS } from '../fixtures/formulaRequests';

describe('plain-language formula requests, offline', () => {
  it('holds at least 40 requests', () => expect(REQUESTS.length).toBeGreaterThanOrEqual(40));

  it.each(REQUESTS)('on %s: "%s" is answered with a checked formula worth %p', (table, prompt, expected) => {
    const { text, formula } = offlineAnswer({ task: 'formula', prompt, data: TABLES[table] });
    expect(text).toMatch(/^Understood: /);
    expect(formula).toMatchObject({ valid: true, error: null });
    expect(text).toContain(formula!.text);
    if (typeof expected === 'number') expect(formula!.value).toBeCloseTo(expected, 9);
    else expect(formula!.value).toBe(expected);
  });

  it.each([
    ['sales', 'Sum column B where A is North'],
    ['sales', 'average Units per Region'],
    ['sales', 'total Revenue for North and Units above 10'],
    ['sales', 'make a pivot table'],
    ['grid', 'total of column A'],
  ] as const)('leaves "%s" on %s to a model, saying so', (table, prompt) => {
    const { text, formula } = offlineAnswer({ task: 'formula', prompt, data: TABLES[table] });
    expect(text).toMatch(/^Writing this formula needs an AI model/);
    expect(formula).toBeNull();
  });
});

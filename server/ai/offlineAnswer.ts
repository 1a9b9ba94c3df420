import { describeData } from './formulas/analyze';
import { checkFormula, publicCheck, type CheckedFormula, type FormulaCheck } from './formulas/engine';
import { explainFormula } from './formulas/explain';
import { formulaInText } from './formulas/extract';
import { formatValue, plural } from './formulas/format';
import { understandRequest } from './formulas/requests';
import { makeSheet, type Sheet } from './formulas/sheet';
import type { AiRequest, Task } from './provider';

/** What the offline assistant answers: the text, and the formula it checked (null when none). */
export interface OfflineAnswer {
  text: string;
  formula: FormulaCheck | null;
}

const WHAT: Record<Exclude<Task, 'analyze'>, string> = {
  formula: 'Writing this formula',
  explain: 'Explaining this',
  guide: 'Writing step-by-step guides',
  ask: 'Answering questions in plain language',
};

function cannotDo(task: Exclude<Task, 'analyze'>, sheet: Sheet): string {
  const shape = sheet.rows > 0 ? ` (this request came with ${plural(sheet.rows, 'row')} × ${plural(sheet.columns, 'column')})` : '';
  return (
    `${WHAT[task]} needs an AI model, and this server runs the offline assistant, which has none. ` +
    `It can compute descriptive statistics of a selected range: use the analyze task${shape}.`
  );
}

/** What a checked formula gives, in one sentence. */
function outcome(check: CheckedFormula, percent = false): string {
  const { problem } = check;
  if (!check.valid) return `${check.text} does not parse${problem ? `: ${problem.position !== null ? `at position ${problem.position}, ` : ''}${problem.reason}` : ''}.`;
  if (check.error !== null) return `${check.text} gives ${check.error} on the selected data${problem ? `: ${problem.reason}` : ''}.`;
  const shown = percent && typeof check.value === 'number' ? ` (${formatValue(Number((check.value * 100).toFixed(2)))} %)` : '';
  return `${check.text} gives ${formatValue(check.value)}${shown} on the selected data (checked by the formula engine).`;
}

/**
 * The offline assistant's answer to a request (decisions.md, "The assistant"): statistics for
 * `analyze`; for `explain` the formula in the prompt explained and evaluated; for `formula` the
 * common requests built and evaluated; for anything else a plain "needs an AI model", with any
 * formula in the prompt still checked.
 */
export function offlineAnswer(request: AiRequest): OfflineAnswer {
  const sheet = makeSheet(request.data ?? [], request.range);
  if (request.task === 'analyze') return { text: describeData(sheet), formula: null };
  const written = request.task === 'formula' || request.task === 'explain' ? formulaInText(request.prompt) : null;
  if (request.task === 'explain' && written !== null) {
    const checked = checkFormula(written, sheet);
    return { text: explainFormula(checked, sheet), formula: publicCheck(checked) };
  }
  if (request.task === 'formula') {
    const understood = written === null ? understandRequest(request.prompt, sheet) : null;
    if (understood) {
      const checked = checkFormula(understood.formula, sheet);
      return {
        text: [`Understood: ${understood.understood}.`, checked.text, outcome(checked, understood.percent)].join('\n'),
        formula: publicCheck(checked),
      };
    }
  }
  if (written !== null) {
    const checked = checkFormula(written, sheet);
    return { text: `${cannotDo(request.task as Exclude<Task, 'analyze'>, sheet)}\nThe formula in the request was checked: ${outcome(checked)}`, formula: publicCheck(checked) };
  }
  return { text: cannotDo(request.task, sheet), formula: null };
}

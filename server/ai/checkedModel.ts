import { checkFormula, publicCheck, type CheckedFormula } from './formulas/engine';
import { fencedFormula } from './formulas/extract';
import { makeSheet, type Sheet } from './formulas/sheet';
import { CallAborted, ProviderError, type AiAnswer, type AiProvider, type AiRequest, type TokenCounts } from './provider';

/** The tasks whose answers show a formula the server checks. */
const CHECKED_TASKS = new Set(['formula', 'explain']);
/** The words of a correction around the error, in tokens, over what the repair call's prompt repeats. */
const CORRECTION_TOKENS = 120;
/** A repair round with less room than this for its answer is not worth making. */
const MIN_REPAIR_TOKENS = 64;

const isChecked = (request: AiRequest) => CHECKED_TASKS.has(request.task);
const works = (check: CheckedFormula) => check.valid && check.error === null;

function add(a: TokenCounts, b: TokenCounts): TokenCounts {
  return { prompt: a.prompt + b.prompt, completion: a.completion + b.completion, total: a.total + b.total };
}

/** The formula an answer shows, checked on the data; null when it shows none. */
function checkAnswer(answer: string, sheet: Sheet): CheckedFormula | null {
  const formula = fencedFormula(answer);
  return formula === null ? null : checkFormula(formula, sheet);
}

/** What the model is told of its formula: the error on the data, and why. */
function correction(check: CheckedFormula): string {
  const why = check.problem ? ` (${check.problem.position !== null ? `at position ${check.problem.position}: ` : ''}${check.problem.reason})` : '';
  const what = !check.valid
    ? `does not parse${why}`
    : check.error === 'unsupported_function'
      ? `uses a function the checker cannot evaluate${why}; use other functions`
      : `gives ${check.error} on the data${why}`;
  return `The formula ${check.text} ${what}. Reply with a corrected formula, starting with =, alone in a fenced code block (\`\`\`excel), then explain it briefly.`;
}

/**
 * A model whose formulas are checked before they are shown (decisions.md, "The assistant"): for
 * `formula` and `explain` the formula the model writes in a fenced block is parsed and evaluated
 * on the data; one that does not parse or evaluates to an error goes back to the model once, with
 * the error, and the second is checked the same way. Both calls' tokens are counted, within the
 * query's reservation: the repair round is made only when the reservation has room for it.
 *
 * The call's signal goes to both calls, so a client that leaves aborts whichever is running; an
 * abort during the repair round says what both calls spent. A streamed call (`onDelta`) streams
 * the first call's answer only: the repair round's answer replaces it whole, as the final answer
 * (the `done` event's, docs/metering.md).
 */
export function checkedModel(model: AiProvider, name: string): AiProvider {
  return {
    engine: name,
    promptTokens: (request) => model.promptTokens(request),
    // Room for the repair round: its prompt repeats the first with the first answer, then its own answer.
    maxCompletionTokens: (request) =>
      isChecked(request) ? 3 * model.maxCompletionTokens(request) + model.promptTokens(request) + CORRECTION_TOKENS : model.maxCompletionTokens(request),
    async answer(request, completionTokens, options = {}) {
      if (!isChecked(request)) return model.answer(request, completionTokens, options);
      const limit = model.maxCompletionTokens(request);
      const sheet = makeSheet(request.data ?? [], request.range);
      const first = await model.answer(request, Math.min(completionTokens, limit), options);
      const check = checkAnswer(first.answer, sheet);
      if (check === null || works(check)) return { ...first, formula: check && publicCheck(check) };
      const repair: AiRequest = { ...request, followUp: { answer: first.answer, correction: correction(check) } };
      const room = Math.min(limit, completionTokens - first.tokens.completion - model.promptTokens(repair));
      const unrepaired: AiAnswer = { ...first, formula: publicCheck(check) };
      if (room < MIN_REPAIR_TOKENS) return unrepaired;
      let second: AiAnswer;
      // The client may have left while the first answer was checked.
      if (options.signal?.aborted) throw new CallAborted(first.tokens);
      try {
        second = await model.answer(repair, room, options.signal ? { signal: options.signal } : {});
      } catch (error) {
        // The first answer stands, unverified: its tokens were spent.
        if (error instanceof ProviderError) return unrepaired;
        if (error instanceof CallAborted) throw new CallAborted(add(first.tokens, error.spent));
        throw error;
      }
      const tokens = add(first.tokens, second.tokens);
      const recheck = checkAnswer(second.answer, sheet);
      // A second answer without a formula leaves the first one's check standing.
      return recheck === null ? { ...unrepaired, tokens } : { answer: second.answer, tokens, formula: publicCheck(recheck) };
    },
  };
}

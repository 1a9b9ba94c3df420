import { offlineAnswer } from './offlineAnswer';
import type { FormulaCheck } from './formulas/engine';
import { approxTokens, fitToTokens, messageTokens, type AiProvider, type AiRequest } from './provider';

/**
 * The built-in provider: no model and no network. It answers from the data it was given and the
 * formula engine (`offlineAnswer.ts`), and says plainly what it cannot do without a model. Its
 * answers are computed in memory before the reservation, so a query reserves exactly the tokens
 * its answer takes.
 */
export function offlineProvider(): AiProvider {
  // Worked out once per request object: for the reservation's size, then for the answer.
  const worked = new WeakMap<AiRequest, { text: string; formula: FormulaCheck | null; promptTokens: number; answerTokens: number }>();
  const work = (request: AiRequest) => {
    let done = worked.get(request);
    if (!done) {
      const { text, formula } = offlineAnswer(request);
      done = { text, formula, promptTokens: messageTokens(request), answerTokens: approxTokens(text) };
      worked.set(request, done);
    }
    return done;
  };
  return {
    engine: 'offline',
    inMemory: true,
    promptTokens: (request) => work(request).promptTokens,
    maxCompletionTokens: (request) => work(request).answerTokens,
    async answer(request, completionTokens) {
      const { text, formula, promptTokens, answerTokens } = work(request);
      const answer = answerTokens <= completionTokens ? text : fitToTokens(text, completionTokens);
      const completion = answer === text ? answerTokens : approxTokens(answer);
      return { answer, formula, tokens: { prompt: promptTokens, completion, total: promptTokens + completion } };
    },
  };
}

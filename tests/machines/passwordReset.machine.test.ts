import { createActor, fromPromise, waitFor } from 'xstate';
import { forgotPasswordMachine } from '../../machines/forgotPassword/forgotPassword.machine';
import { resetPasswordMachine, type ResetPasswordInput } from '../../machines/resetPassword/resetPassword.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../../machines/shared/api';
import { word } from '../helpers/words';

const refusal = (status: number, code: ApiRequestError['code'], text: string | null, retryAfter: number | null = null) =>
  new ApiRequestError(`API Error: ${status}`, status, code, text, retryAfter);
const offline = () => new ApiRequestError(messages.auth.networkFailure, 0);

/** The forgot-password chart with its request answered by `answer`; the emails it was asked for. */
function forgot(answer: () => Promise<unknown>) {
  const asked: string[] = [];
  const requestReset = fromPromise<unknown, { email: string }>(({ input }) => (asked.push(input.email), answer()));
  const actor = createActor(forgotPasswordMachine.provide({ actors: { requestReset } })).start();
  return { actor, asked };
}

function reset(answer: () => Promise<void>) {
  const sent: ResetPasswordInput[] = [];
  const resetPassword = fromPromise<void, ResetPasswordInput>(({ input }) => (sent.push(input), answer()));
  const actor = createActor(resetPasswordMachine.provide({ actors: { resetPassword } })).start();
  return { actor, sent };
}

describe('forgot-password chart', () => {
  it('sends the address once and then shows the link is on its way', async () => {
    const { actor, asked } = forgot(async () => ({ message: 'sent' }));
    actor.send({ type: 'form.submit', email: 'ada@example.com' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    const done = await waitFor(actor, (s) => s.hasTag('done'));
    expect(asked).toEqual(['ada@example.com']);
    expect(done.context.failure).toBeNull();
  });

  it.each([
    ['no connection', offline(), messages.auth.networkFailure],
    ['a 429 with Retry-After', refusal(429, 'rate_limited', 'Slow down', 150), messages.auth.tooManyAttempts(150)],
    ['another refusal, in the server’s words', refusal(400, 'invalid_input', 'Email is invalid'), 'Email is invalid'],
  ])('on %s, goes back to the form with the sentence, cleared by the next attempt', async (_, error, sentence) => {
    let calls = 0;
    const { actor } = forgot(() => (++calls === 1 ? Promise.reject(error) : new Promise(() => undefined)));
    actor.send({ type: 'form.submit', email: 'ada@example.com' });
    const failed = await waitFor(actor, (s) => s.context.failure !== null);
    expect(failed.value).toBe('editing');
    expect(word(failed.context.failure!)).toBe(sentence);
    actor.send({ type: 'form.submit', email: 'ada@example.com' });
    expect(actor.getSnapshot().context.failure).toBeNull();
  });
});

describe('reset-password chart', () => {
  it('sends the token with the new password and ends saved', async () => {
    const { actor, sent } = reset(async () => undefined);
    actor.send({ type: 'form.submit', token: 'tok', new_password: 'a new secret' });
    await waitFor(actor, (s) => s.hasTag('done'));
    expect(sent).toEqual([{ token: 'tok', new_password: 'a new secret' }]);
  });

  it('offers a new link when the token is refused, and words no connection as every flow does', async () => {
    let calls = 0;
    const errors = [refusal(400, 'invalid_reset_token', 'This reset link is invalid or has expired.'), offline()];
    const { actor } = reset(() => Promise.reject(errors[calls++]));
    actor.send({ type: 'form.submit', token: 'old', new_password: 'a new secret' });
    const refused = await waitFor(actor, (s) => s.context.failure !== null);
    expect({ ...refused.context, failure: word(refused.context.failure!) }).toEqual({ failure: 'This reset link is invalid or has expired.', invalidToken: true });

    actor.send({ type: 'form.submit', token: 'old', new_password: 'a new secret' });
    expect(actor.getSnapshot().context).toEqual({ failure: null, invalidToken: false });
    const unreachable = await waitFor(actor, (s) => s.context.failure !== null);
    expect({ ...unreachable.context, failure: word(unreachable.context.failure!) }).toEqual({ failure: messages.auth.networkFailure, invalidToken: false });
  });

  it('shows a 429 in the server’s words, as the page always did', async () => {
    const { actor } = reset(() => Promise.reject(refusal(429, 'rate_limited', 'Too many requests', 60)));
    actor.send({ type: 'form.submit', token: 'tok', new_password: 'a new secret' });
    const failed = await waitFor(actor, (s) => s.context.failure !== null);
    expect(word(failed.context.failure!)).toBe('Too many requests');
  });
});

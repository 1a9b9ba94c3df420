import { createActor, fromPromise, waitFor } from 'xstate';
import { DRAFT_KEY, readDraft, supportMailto, type SubmitInput } from '../../machines/supportForm/supportForm.actors';
import { supportFormMachine, type SupportUser } from '../../machines/supportForm/supportForm.machine';
import type { SupportField } from '../../machines/supportForm/supportForm.schema';
import * as messages from '../../src/content/messages';
import { SUPPORT_MAIL, word, worded } from '../helpers/words';

const ada: SupportUser = { id: 'u-7', full_name: 'Ada Lovelace', email: 'ada@example.com' };
const valid = { title: 'Formula broken', description: 'VLOOKUP returns #N/A & more', email: 'ada@example.com', telephone: '+44 20 7946 0000' };

function start(user: SupportUser | null, submit: (input: SubmitInput) => Promise<void> = async () => undefined) {
  const notes: Array<ReturnType<typeof worded>> = [];
  const focused: Array<SupportField | undefined> = [];
  const submitted: SubmitInput[] = [];
  const actor = createActor(
    supportFormMachine.provide({
      actors: {
        submit: fromPromise<void, SubmitInput>(async ({ input }) => {
          submitted.push(input);
          return submit(input);
        }),
      },
      actions: { notify: (_, params) => notes.push(worded(params)), focusField: (_, field) => focused.push(field) },
    }),
    { input: { user, supportEmail: 'help@sheetmind.example', mail: SUPPORT_MAIL } },
  ).start();
  return { actor, notes, focused, submitted };
}

const fill = (actor: ReturnType<typeof start>['actor'], values: Record<string, string>) => {
  for (const [field, value] of Object.entries(values)) actor.send({ type: 'draft.change', field: field as SupportField, value });
};

beforeEach(() => localStorage.clear());

describe('support form chart', () => {
  it('restores the saved draft and saves every change', async () => {
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ title: 'Saved', description: 'from before' }));
    const { actor } = start(null);
    await waitFor(actor, (s) => s.matches('editing'));
    expect(actor.getSnapshot().context.values).toMatchObject({ title: 'Saved', description: 'from before', email: '' });
    actor.send({ type: 'draft.change', field: 'telephone', value: '123' });
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toMatchObject({ title: 'Saved', telephone: '123' });
  });

  it('keeps what the fields held when the page took over, and what was typed before the draft was read, over the draft, and saves both', async () => {
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ title: 'Saved', telephone: '123' }));
    const { actor } = start(null);
    // Sent while the draft is being read: the fields show it meanwhile.
    actor.send({ type: 'draft.fill', values: { title: 'Typed' } });
    actor.send({ type: 'draft.change', field: 'description', value: 'typed at once' });
    expect(actor.getSnapshot().context.values).toMatchObject({ title: 'Typed', description: 'typed at once' });
    await waitFor(actor, (s) => s.matches('editing'));
    const merged = { title: 'Typed', description: 'typed at once', email: '', telephone: '123' };
    expect(actor.getSnapshot().context.values).toEqual(merged);
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toEqual(merged);
    actor.send({ type: 'draft.fill', values: { email: 'ada@example.com', telephone: '456' } });
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toEqual({ ...merged, email: 'ada@example.com', telephone: '456' });
  });

  it('saves what was typed over a corrupt draft, and saves nothing when nothing was', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    localStorage.setItem(DRAFT_KEY, '{not json');
    const typed = start(null).actor;
    typed.send({ type: 'draft.fill', values: { title: 'Typed' } });
    await waitFor(typed, (s) => s.matches('editing'));
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toEqual({ title: 'Typed', description: '', email: '', telephone: '' });
    localStorage.clear();
    const untouched = start(null).actor;
    await waitFor(untouched, (s) => s.matches('editing'));
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
    log.mockRestore();
  });

  it('logs and ignores a corrupt draft', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    localStorage.setItem(DRAFT_KEY, '{not json');
    const { actor } = start(null);
    await waitFor(actor, (s) => s.matches('editing'));
    expect(actor.getSnapshot().context.values).toEqual({ title: '', description: '', email: '', telephone: '' });
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  it('prefills an empty email from the account, but never overwrites one', async () => {
    const { actor } = start(ada);
    await waitFor(actor, (s) => s.matches('editing'));
    expect(actor.getSnapshot().context.values.email).toBe('ada@example.com');
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ email: 'other@example.com' }));
    const second = start(ada).actor;
    await waitFor(second, (s) => s.matches('editing'));
    expect(second.getSnapshot().context.values.email).toBe('other@example.com');
  });

  it('refuses to submit when signed out, with the spec toast', async () => {
    const { actor, notes, submitted } = start(null);
    await waitFor(actor, (s) => s.matches('editing'));
    fill(actor, valid);
    actor.send({ type: 'form.submit' });
    expect(notes).toEqual([{ type: 'error', title: 'Authentication required', description: 'Please log in to submit your support request.' }]);
    expect(submitted).toEqual([]);
  });

  it('carries out a submit sent while the draft is read, once it is read, and only once', async () => {
    localStorage.setItem(DRAFT_KEY, JSON.stringify(valid));
    const signedOut = start(null);
    signedOut.actor.send({ type: 'form.submit' });
    await waitFor(signedOut.actor, (s) => s.matches('editing'));
    expect(signedOut.notes).toEqual([{ type: 'error', title: 'Authentication required', description: 'Please log in to submit your support request.' }]);

    const signedIn = start(ada);
    signedIn.actor.send({ type: 'form.submit' });
    await waitFor(signedIn.actor, (s) => s.matches('editing') && signedIn.submitted.length > 0);
    expect(signedIn.submitted.map((input) => input.values)).toEqual([valid]);
    expect(signedIn.notes.map((note) => note.title)).toEqual([messages.support.submitted]);
  });

  it('validates on submit, focuses the first invalid field, then re-validates on change', async () => {
    const { actor, focused } = start(ada);
    await waitFor(actor, (s) => s.matches('editing'));
    actor.send({ type: 'draft.change', field: 'description', value: 'short' });
    actor.send({ type: 'form.submit' });
    expect(Object.fromEntries(Object.entries(actor.getSnapshot().context.errors).map(([field, key]) => [field, word(key)]))).toEqual({
      title: messages.support.validation.title,
      description: messages.support.validation.description,
      telephone: messages.support.validation.telephone,
    });
    expect(focused).toEqual(['title']);
    actor.send({ type: 'draft.change', field: 'title', value: 'Now titled' });
    expect(actor.getSnapshot().context.errors.title).toBeUndefined();
    actor.send({ type: 'draft.change', field: 'email', value: 'not-an-address' });
    expect(word(actor.getSnapshot().context.errors.email!)).toBe(messages.support.validation.email);
  });

  it('submits, resets the form and removes the draft', async () => {
    const { actor, notes, submitted } = start(ada);
    await waitFor(actor, (s) => s.matches('editing'));
    fill(actor, valid);
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await waitFor(actor, (s) => s.matches('editing'));
    expect(submitted[0]).toMatchObject({ values: valid, submitter: { id: 'u-7', full_name: 'Ada Lovelace' } });
    expect(notes.at(-1)).toMatchObject({ type: 'success', title: 'Support request submitted' });
    expect(actor.getSnapshot().context.values).toEqual({ title: '', description: '', email: 'ada@example.com', telephone: '' });
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
  });

  it('keeps the draft when submitting fails', async () => {
    const { actor, notes } = start(ada, () => Promise.reject(new Error('no mail program')));
    await waitFor(actor, (s) => s.matches('editing'));
    fill(actor, valid);
    actor.send({ type: 'form.submit' });
    await waitFor(actor, () => notes.length > 0);
    expect(notes[0]).toMatchObject({ type: 'error', title: 'Submission failed' });
    expect(actor.getSnapshot().context.values).toEqual(valid);
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toEqual(valid);
  });
});

describe('support mail link', () => {
  it('encodes every field so &, #, new lines and non-ASCII survive', () => {
    const values = { title: 'Sums & #REF! in Zürich', description: 'Line 1\nLine 2 — ünïcødé #hash &amp', email: 'a+b@example.com', telephone: '+1 555' };
    const url = supportMailto({ values, submitter: null, supportEmail: 'help@sheetmind.example', mail: SUPPORT_MAIL });
    expect(url.startsWith('mailto:help@sheetmind.example?subject=')).toBe(true);
    const params = new URLSearchParams(url.slice(url.indexOf('?') + 1).replace(/\+/g, '%2B'));
    expect(params.get('subject')).toBe(values.title);
    expect(params.get('body')).toBe(
      [
        'Title: Sums & #REF! in Zürich',
        'Email: a+b@example.com',
        'Phone: +1 555',
        '',
        'Description:',
        values.description,
        '',
        'Submitted by: Unknown User',
        'User ID: Unknown',
      ].join('\n'),
    );
  });

  it('names the signed-in submitter', () => {
    const url = supportMailto({ values: valid, submitter: { id: 'u-7', full_name: 'Ada Lovelace' }, supportEmail: 'x@y.z', mail: SUPPORT_MAIL });
    const body = decodeURIComponent(url.split('&body=')[1]!);
    expect(body).toContain('Submitted by: Ada Lovelace');
    expect(body).toContain('User ID: u-7');
  });

  it('reads only string fields of a draft object', () => {
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ title: 'T', description: 5, extra: 'x' }));
    expect(readDraft()).toEqual({ title: 'T' });
    localStorage.setItem(DRAFT_KEY, '[1,2]');
    expect(() => readDraft()).toThrow();
  });
});

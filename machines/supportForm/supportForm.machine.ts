import { assign, raise, setup } from 'xstate';
import type { NotifyParams } from '../shared/notify';
import { DRAFT_KEY, supportFormActors, type Submitter, type SupportMailWords } from './supportForm.actors';
import { EMPTY_SUPPORT_VALUES, SUPPORT_FIELDS, validateSupport, type SupportErrors, type SupportField, type SupportValues } from './supportForm.schema';
import { reportFailure } from '../shared/failures';

export interface SupportUser extends Submitter {
  email: string;
}

export interface SupportFormContext {
  values: SupportValues;
  /** What was typed before the draft was read (when the page took over, or since): it wins over the draft. */
  typed: Partial<SupportValues>;
  errors: SupportErrors;
  /** After the first submit, every change re-validates (spec §5). */
  validateOnChange: boolean;
  /** Sent while the draft was being read (e.g. Enter before the app took over): carried out once it is. */
  submitHeld: boolean;
  user: SupportUser | null;
  supportEmail: string;
  mail: SupportMailWords;
}

export type SupportFormEvent =
  | { type: 'draft.change'; field: SupportField; value: string }
  /** Several fields at once: what they held when the app took over the page (src/lib/useEarlyInput.ts). */
  | { type: 'draft.fill'; values: Partial<SupportValues> }
  | { type: 'form.submit' }
  /** The signed-in user changed (null when signed out). */
  | { type: 'session.update'; user: SupportUser | null };


/** Prefills the email from the account when the field is empty (spec §4). */
function withAccountEmail(values: SupportValues, user: SupportUser | null): SupportValues {
  return user && values.email.trim() === '' ? { ...values, email: user.email } : values;
}

function typedEarly(context: SupportFormContext, values: Partial<SupportValues>): Partial<SupportFormContext> {
  return { typed: { ...context.typed, ...values }, values: { ...context.values, ...values } };
}

/** The restored draft (if any) with what was typed before it was read over it. */
function restoredValues(draft: Partial<SupportValues>, context: SupportFormContext): SupportValues {
  return withAccountEmail({ ...EMPTY_SUPPORT_VALUES, ...draft, ...context.typed }, context.user);
}

/**
 * The support form: restoring the draft → editing ⇄ validating → submitting. The draft is saved
 * on every change and removed after a successful submit; submitting opens a mail-composition link.
 */
export const supportFormMachine = setup({
  types: {
    context: {} as SupportFormContext,
    events: {} as SupportFormEvent,
    input: {} as { user: SupportUser | null; supportEmail: string; mail: SupportMailWords },
  },
  actors: supportFormActors,
  actions: {
    saveDraft: ({ context }) => localStorage.setItem(DRAFT_KEY, JSON.stringify(context.values)),
    removeDraft: () => localStorage.removeItem(DRAFT_KEY),
    /** What was typed before the draft was read is saved with it, as any later change is. */
    saveTypedDraft: ({ context }) => {
      if (Object.keys(context.typed).length > 0) localStorage.setItem(DRAFT_KEY, JSON.stringify(context.values));
    },
    logCorruptDraft: (_, error: unknown) => console.error('Ignoring a corrupt support form draft:', error),
    /** Moves focus to the first field with an error; the page provides it. */
    focusField: (_, _field: SupportField | undefined) => undefined,
    notify: (_, _params: NotifyParams) => undefined,
  },
  guards: {
    isSignedIn: ({ context }) => context.user !== null,
    hasErrors: ({ context }) => Object.keys(context.errors).length > 0,
    hasHeldSubmit: ({ context }) => context.submitHeld,
  },
}).createMachine({
  id: 'supportForm',
  context: ({ input }) => ({
    values: EMPTY_SUPPORT_VALUES,
    typed: {},
    errors: {},
    validateOnChange: false,
    submitHeld: false,
    user: input.user,
    supportEmail: input.supportEmail,
    mail: input.mail,
  }),
  on: {
    'session.update': {
      actions: assign(({ context, event }) => ({ user: event.user, values: withAccountEmail(context.values, event.user) })),
    },
  },
  initial: 'restoring',
  states: {
    restoring: {
      // Typed before the draft is read (the page may take input before the chart has started):
      // shown as typed meanwhile, then merged over the draft.
      on: {
        'draft.change': { actions: assign(({ context, event }) => typedEarly(context, { [event.field]: event.value })) },
        'draft.fill': { actions: assign(({ context, event }) => typedEarly(context, event.values)) },
        'form.submit': { actions: assign({ submitHeld: true }) },
      },
      invoke: {
        id: 'loadDraft',
        src: 'loadDraft',
        onDone: {
          target: 'editing',
          actions: [assign(({ context, event }) => ({ values: restoredValues(event.output, context) })), 'saveTypedDraft'],
        },
        onError: {
          target: 'editing',
          actions: [
            { type: 'logCorruptDraft', params: ({ event }: { event: { error: unknown } }) => event.error },
            assign(({ context }) => ({ values: restoredValues({}, context) })),
            'saveTypedDraft',
          ],
        },
      },
    },
    editing: {
      always: { guard: 'hasHeldSubmit', actions: [assign({ submitHeld: false }), raise({ type: 'form.submit' })] },
      on: {
        'draft.change': {
          actions: [
            assign(({ context, event }) => {
              const values = { ...context.values, [event.field]: event.value };
              return { values, errors: context.validateOnChange ? validateSupport(values) : context.errors };
            }),
            'saveDraft',
          ],
        },
        'draft.fill': {
          actions: [
            assign(({ context, event }) => {
              const values = { ...context.values, ...event.values };
              return { values, errors: context.validateOnChange ? validateSupport(values) : context.errors };
            }),
            'saveDraft',
          ],
        },
        'form.submit': [
          { guard: 'isSignedIn', target: 'validating' },
          {
            actions: reportFailure({ title: 'support.authRequired', description: 'support.authRequiredText' }),
          },
        ],
      },
    },
    validating: {
      entry: assign(({ context }) => ({ errors: validateSupport(context.values), validateOnChange: true })),
      always: [
        {
          guard: 'hasErrors',
          target: 'editing',
          actions: {
            type: 'focusField',
            params: ({ context }) => SUPPORT_FIELDS.find((field) => context.errors[field]),
          },
        },
        { target: 'submitting' },
      ],
    },
    submitting: {
      tags: ['busy'],
      invoke: {
        id: 'submit',
        src: 'submit',
        input: ({ context }) => ({
          values: context.values,
          submitter: context.user && { id: context.user.id, full_name: context.user.full_name },
          supportEmail: context.supportEmail,
          mail: context.mail,
        }),
        onDone: {
          target: 'editing',
          actions: [
            'removeDraft',
            assign(({ context }) => ({ values: withAccountEmail(EMPTY_SUPPORT_VALUES, context.user), errors: {}, validateOnChange: false })),
            { type: 'notify', params: { type: 'success', title: 'support.submitted', description: 'support.submittedText' } },
          ],
        },
        // The draft stays saved, so nothing typed is lost.
        onError: {
          target: 'editing',
          actions: reportFailure({ title: 'support.failed', description: 'support.failedText' }),
        },
      },
    },
  },
});

export type SupportFormMachine = typeof supportFormMachine;

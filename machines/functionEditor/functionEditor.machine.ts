import { assign, setup } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import type { CustomFunction } from '../shared/api';
import { failureCode, serverFailure } from '../shared/failures';
import { functionEditorActors } from './functionEditor.actors';
import { EMPTY_FUNCTION, FUNCTION_FIELDS, validateFunction, type FunctionErrors, type FunctionField, type FunctionValues } from './functionEditor.schema';

export type FunctionEditorEvent = { type: 'field.change'; field: FunctionField; value: string } | { type: 'form.submit' } | { type: 'form.cancel' };

export interface FunctionEditorContext {
  auth: AuthActorRef;
  /** The function changed; null for a new one. */
  id: string | null;
  values: FunctionValues;
  errors: FunctionErrors;
  /** After the first submit, every change re-validates (as every form of the portal). */
  validateOnChange: boolean;
  /** The function as the server holds it once saved: the chart's output. */
  saved: CustomFunction | null;
}

/** The field a refusal of the server is about: the name taken, the team scope refused, the limit reached. */
const FIELD_OF: Record<string, FunctionField | 'form'> = { function_exists: 'name', forbidden: 'scope', function_limit_reached: 'scope' };

/** A refusal of the server, on the field it is about, in the catalogue's words where it has them. */
export function serverErrors(error: unknown): FunctionErrors {
  const code = failureCode(error);
  const own = serverFailure(error);
  return { [(code && FIELD_OF[code]) || 'form']: code ? { words: 'functions.errors', code, otherwise: own } : own };
}

/**
 * The function editor of /functions: editing ⇄ validating (the yup schema beside it, the
 * contract's rules) → saving, which ends in `saved` with the function as the server holds it, or
 * back in `editing` with the server's refusal on its field. `form.cancel` ends it in `cancelled`.
 */
export const functionEditorMachine = setup({
  types: {
    context: {} as FunctionEditorContext,
    events: {} as FunctionEditorEvent,
    input: {} as { auth: AuthActorRef; function?: CustomFunction | null; scope?: FunctionValues['scope'] },
    output: {} as CustomFunction | null,
    tags: {} as 'busy',
  },
  actors: functionEditorActors,
  actions: {
    /** Moves focus to the first field with an error; the page provides it. */
    focusField: (_, _field: FunctionField | 'form' | undefined) => undefined,
  },
  guards: {
    hasErrors: ({ context }) => Object.keys(context.errors).length > 0,
  },
}).createMachine({
  id: 'functionEditor',
  context: ({ input }) => {
    const fn = input.function ?? null;
    return {
      auth: input.auth,
      id: fn?.id ?? null,
      values: fn ? { name: fn.name, task: fn.task, prompt: fn.prompt, description: fn.description, scope: fn.scope } : { ...EMPTY_FUNCTION, scope: input.scope ?? 'personal' },
      errors: {},
      validateOnChange: false,
      saved: null,
    };
  },
  initial: 'editing',
  states: {
    editing: {
      on: {
        'field.change': {
          actions: assign(({ context, event }) => {
            const values = { ...context.values, [event.field]: event.value };
            return { values, errors: context.validateOnChange ? validateFunction(values) : context.errors };
          }),
        },
        'form.submit': 'validating',
        'form.cancel': 'cancelled',
      },
    },
    validating: {
      entry: assign(({ context }) => ({ errors: validateFunction(context.values), validateOnChange: true })),
      always: [
        { guard: 'hasErrors', target: 'editing', actions: { type: 'focusField', params: ({ context }) => FUNCTION_FIELDS.find((field) => context.errors[field]) } },
        { target: 'saving' },
      ],
    },
    saving: {
      tags: ['busy'],
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }) => ({ auth: context.auth, id: context.id, values: context.values }),
        onDone: { target: 'saved', actions: assign({ saved: ({ event }) => event.output }) },
        onError: {
          target: 'editing',
          actions: [
            assign({ errors: ({ event }) => serverErrors(event.error) }),
            { type: 'focusField', params: ({ event }) => Object.keys(serverErrors(event.error))[0] as FunctionField | 'form' },
          ],
        },
      },
    },
    saved: { type: 'final' },
    cancelled: { type: 'final' },
  },
  output: ({ context }) => context.saved,
});

export type FunctionEditorMachine = typeof functionEditorMachine;

import * as yup from 'yup';
import { DESCRIPTION_MAX_LENGTH, FUNCTION_NAME, INPUT_PLACEHOLDER, PROMPT_MAX_LENGTH, TASKS, type FunctionScope, type Task } from '../../contract/functions';
import type { Message, MessageKey } from '../shared/messages';

// The messages are the catalogue's names (machines/shared/messages.ts): the page words them.

/** The rules of `POST /functions` (decisions.md, "Professional's promises"), checked before the server is asked. */
export const functionSchema = yup.object({
  name: yup.string().required('functions.validation.nameRequired').matches(FUNCTION_NAME, 'functions.validation.name'),
  task: yup.string().oneOf(TASKS).required(),
  prompt: yup
    .string()
    .required('functions.validation.promptRequired')
    .max(PROMPT_MAX_LENGTH, 'functions.validation.promptLong')
    .test('input', 'functions.validation.promptInput', (prompt) => prompt.includes(INPUT_PLACEHOLDER)),
  description: yup.string().max(DESCRIPTION_MAX_LENGTH, 'functions.validation.descriptionLong'),
});

export interface FunctionValues {
  name: string;
  task: Task;
  prompt: string;
  description: string;
  scope: FunctionScope;
}
export type FunctionField = keyof FunctionValues;
/** Every field's first error; `form` holds what belongs to no one field (the server unreachable, say). */
export type FunctionErrors = Partial<Record<FunctionField | 'form', Message>>;

export const FUNCTION_FIELDS: readonly FunctionField[] = ['name', 'task', 'prompt', 'description', 'scope'];
export const EMPTY_FUNCTION: FunctionValues = { name: '', task: 'analyze', prompt: '', description: '', scope: 'personal' };

/** Every field's first error, or {} when the values are valid. */
export function validateFunction(values: FunctionValues): FunctionErrors {
  try {
    functionSchema.validateSync(values, { abortEarly: false });
    return {};
  } catch (error) {
    const errors: FunctionErrors = {};
    for (const issue of (error as yup.ValidationError).inner) errors[issue.path as FunctionField] ??= issue.message as MessageKey;
    return errors;
  }
}

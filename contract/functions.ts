/**
 * Custom functions as server and client both read them (decisions.md, "Professional's promises"):
 * the tasks a query (and so a function) may be of, the rules of a function's fields, and what the
 * API answers for one.
 */
export const TASKS = ['analyze', 'formula', 'explain', 'guide', 'ask'] as const;
export type Task = (typeof TASKS)[number];

/** Upper-case letters, digits and _, starting with a letter, at most 30: the cell function `=SHEETMIND.NAME(…)`. */
export const FUNCTION_NAME = /^[A-Z][A-Z0-9_]{0,29}$/;
/** Where the selected cells go in a function's prompt. */
export const INPUT_PLACEHOLDER = '{{input}}';
export const PROMPT_MAX_LENGTH = 2000;
export const DESCRIPTION_MAX_LENGTH = 500;

export type FunctionScope = 'personal' | 'team';

export interface CustomFunction {
  id: string;
  name: string;
  task: Task;
  prompt: string;
  description: string;
  scope: FunctionScope;
  created_at: string;
  updated_at: string;
}

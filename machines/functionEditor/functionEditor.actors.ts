import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { functionsApi, type CustomFunction } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';
import type { FunctionValues } from './functionEditor.schema';

export interface SaveInput extends AuthInput {
  /** The function changed; null for a new one. */
  id: string | null;
  values: FunctionValues;
}

export const functionEditorActors = {
  /** Creates the function, or changes it (a function's scope stays what it was made with). */
  save: fromPromise<CustomFunction, SaveInput>(({ input: { auth, id, values }, signal }) => {
    const { scope, ...fields } = values;
    return withAuthRetry(auth, () => (id === null ? functionsApi.create({ ...fields, scope }, { signal }) : functionsApi.update(id, fields, { signal })));
  }),
};

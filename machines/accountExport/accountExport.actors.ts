import { fromPromise } from 'xstate';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';
import { usageApi } from '../shared/api';
import { saveFile } from '../shared/saveFile';

/** The name the server gives the file too (server/routes/accountExport.ts). */
export const exportFileName = (now = Date.now()) => `account-export-${new Date(now).toISOString().slice(0, 10)}.json`;

export const accountExportActors = {
  exportAccount: fromPromise<void, AuthInput>(async ({ input, signal }) =>
    saveFile(await withAuthRetry(input.auth, () => usageApi.accountExport({ signal })), exportFileName(), 'application/json'),
  ),
};

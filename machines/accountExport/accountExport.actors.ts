import { fromPromise } from 'xstate';
import { withAuthRetry } from '../auth/auth.retry';
import { usageApi } from '../../src/lib/api';
import { saveFile } from '../../src/lib/saveFile';
import type { AuthInput } from '../subscription/subscription.actors';

/** The name the server gives the file too (server/routes/accountExport.ts). */
export const exportFileName = (now = Date.now()) => `account-export-${new Date(now).toISOString().slice(0, 10)}.json`;

export const accountExportActors = {
  exportAccount: fromPromise<void, AuthInput>(async ({ input, signal }) =>
    saveFile(await withAuthRetry(input.auth, () => usageApi.accountExport({ signal })), exportFileName(), 'application/json'),
  ),
};

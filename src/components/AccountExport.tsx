import { Button, Stack, Text } from '@chakra-ui/react';
import { useAuthRef } from '../app/auth';
import { accountExportMachine, type AccountExportSnapshot } from '../../machines/accountExport/accountExport.machine';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { createChartContext, useSelector } from '../lib/chart';

const t = messages.usage;
/** The sections the export chart's notices are in. */
const TEXTS = { usage: t, ...FAILURE_TEXTS };

/** The export chart the section runs; tests hand in one with fake effects. */
export const AccountExportChart = createChartContext(accountExportMachine);

const selectView = (s: AccountExportSnapshot) => ({ busy: s.hasTag('busy'), notice: s.context.notice && say(s.context.notice, TEXTS), failed: s.matches('failed') });
const sameView = (a: ReturnType<typeof selectView>, b: ReturnType<typeof selectView>) => a.busy === b.busy && a.notice === b.notice && a.failed === b.failed;

/**
 * "Download my data" (every plan, once an hour), on /usage and the profile. What the last export
 * ended with stays beside the button: a refusal names the wait, which a toast would take away.
 */
export function AccountExport() {
  const auth = useAuthRef();
  const actor = AccountExportChart.useActor({ input: { auth } });
  const view = useSelector(actor, selectView, sameView);
  return (
    <Stack gap="3" align="flex-start">
      <Text color="fg.muted" fontSize="sm">
        {t.exportText}
      </Text>
      <Button variant="outline" onClick={() => actor.send({ type: 'export.start' })} loading={view.busy} loadingText={t.exportBusy}>
        {t.exportAction}
      </Button>
      {/* Always in the page, so a screen reader hears what comes into it. */}
      <Text role="status" fontSize="sm" color={view.failed ? 'red.fg' : 'green.fg'}>
        {view.busy ? '' : view.notice}
      </Text>
    </Stack>
  );
}

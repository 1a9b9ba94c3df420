import { Alert, Box, Button, Container, Stack, Text } from '@chakra-ui/react';
import { useAuthRef } from '../app/auth';
import { resendVerificationMachine, type ResendVerificationSnapshot } from '../../machines/resendVerification/resendVerification.machine';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { createChartContext, useSelector } from '../lib/chart';

const t = messages.verifyEmail;
const TEXTS = { verifyEmail: t, ...FAILURE_TEXTS };

/** The banner's resend chart; tests hand in one with fake effects. */
export const ResendVerificationChart = createChartContext(resendVerificationMachine);

const selectView = (s: ResendVerificationSnapshot) => ({ busy: s.hasTag('busy'), notice: s.context.notice && say(s.context.notice, TEXTS), failed: s.matches('failed') });
const sameView = (a: ReturnType<typeof selectView>, b: ReturnType<typeof selectView>) => a.busy === b.busy && a.notice === b.notice && a.failed === b.failed;

/** The reminder of signed-in pages while the account's address is unverified, with "Resend link" (src/app/Layout.tsx loads it then). */
export default function VerifyEmailBanner({ email }: { email: string }) {
  const auth = useAuthRef();
  const actor = ResendVerificationChart.useActor({ input: { auth }, effects: { emailVerified: () => auth.send({ type: 'user.emailVerified' }) } });
  const view = useSelector(actor, selectView, sameView);
  return (
    <Box borderBottomWidth="1px" bg="bg">
      <Container maxW="6xl" py="3">
        <Alert.Root status="warning" aria-label={t.title}>
          <Alert.Indicator />
          <Alert.Content>
            <Stack direction={{ base: 'column', md: 'row' }} gap="3" align={{ base: 'flex-start', md: 'center' }} justify="space-between">
              <Alert.Description overflowWrap="anywhere">{t.bannerText(email)}</Alert.Description>
              <Button size="sm" variant="outline" flexShrink={0} onClick={() => actor.send({ type: 'resend.start' })} loading={view.busy} loadingText={t.resendBusy}>
                {t.resend}
              </Button>
            </Stack>
            {/* Always in the page, so a screen reader hears what comes into it. */}
            <Text role="status" fontSize="sm" color={view.failed ? 'red.fg' : 'green.fg'}>
              {view.busy ? '' : view.notice}
            </Text>
          </Alert.Content>
        </Alert.Root>
      </Container>
    </Box>
  );
}


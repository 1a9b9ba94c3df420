import { Button, Spinner, Stack, Text } from '@chakra-ui/react';
import { useSearchParams } from 'react-router-dom';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { verifyEmailMachine } from '../../machines/verifyEmail/verifyEmail.machine';
import { AuthCard } from '../components/AuthCard';
import { Notice } from '../components/Notice';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { createChartContext, useSelector } from '../lib/chart';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.verifyEmail;
const TEXTS = { verifyEmail: t, ...FAILURE_TEXTS };

/** The page's chart; tests may hand in one with a fake request. */
export const VerifyEmailChart = createChartContext(verifyEmailMachine);

/** The mailed link's page (`/verify-email?token=…`): verifies as it opens, signed in or not. */
export default function VerifyEmailPage() {
  usePageTitle(t.title);
  const [params] = useSearchParams();
  const auth = useAuthRef();
  const signedIn = useAuthSelector((s) => s.hasTag('signedIn'));
  const actor = VerifyEmailChart.useActor({
    input: { token: params.get('token') ?? '' },
    // Signed in, the app's user is verified from now on: the banner goes at once.
    effects: { emailVerified: () => auth.send({ type: 'user.emailVerified' }) },
  });
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const verified = useSelector(actor, (s) => s.matches('verified'));
  const failure = useSelector(actor, (s) => s.context.failure);

  const onward = (
    <Button asChild colorPalette="brand" size="lg">
      <RouterLink to={signedIn ? '/dashboard' : '/login'}>{signedIn ? t.toDashboard : t.toLogin}</RouterLink>
    </Button>
  );
  let body;
  if (busy) {
    body = (
      <Stack direction="row" gap="3" align="center" role="status">
        <Spinner size="sm" />
        <Text>{t.verifying}</Text>
      </Stack>
    );
  } else if (verified) {
    body = (
      <Stack gap="4">
        <Notice status="success" title={t.verifiedTitle}>
          {t.verifiedText}
        </Notice>
        {onward}
      </Stack>
    );
  } else {
    body = (
      <Stack gap="4">
        <Notice status="error" title={t.failedTitle}>
          {failure && say(failure, TEXTS)}
        </Notice>
        {onward}
      </Stack>
    );
  }
  return (
    <AuthCard heading={t.title} lead={t.lead}>
      {body}
    </AuthCard>
  );
}

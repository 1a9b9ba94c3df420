import { Button, Container, HStack, Stack, Text } from '@chakra-ui/react';
import { useLocation, useNavigate, useParams } from 'react-router-dom';
import { invitationMachine } from '../../machines/invitation/invitation.machine';
import { useMembershipKnown } from '../app/membership';
import { useAuthRef, useAuthSelector, useDrawnSessionStatus } from '../app/auth';
import type { RedirectState } from '../app/RequireAuth';
import { RouterLink } from '../app/RouterLink';
import { Notice } from '../components/Notice';
import { PageHeader } from '../components/PageHeader';
import { PageSpinner } from '../components/PageSpinner';
import { toastEffect } from '../components/Toaster';
import * as messages from '../content/messages';
import { say } from '../content/say';
import { createChartContext, useSelector } from '../lib/chart';
import { formatDate } from '../lib/planDisplay';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.invitation;
const TEXTS = { invitation: t, api: messages.api };

/** The invitation chart the page runs; tests may hand in one with fake effects. */
export const InvitationChart = createChartContext(invitationMachine);

/** `/invite/{token}`: the invitation, and the way to accept it from wherever the visitor stands. */
export default function InvitePage() {
  usePageTitle(t.title);
  const { token = '' } = useParams();
  const auth = useAuthRef();
  const navigate = useNavigate();
  const location = useLocation();
  const membershipKnown = useMembershipKnown();
  const actor = InvitationChart.useActor({
    input: { auth, token },
    effects: { notify: toastEffect, navigate: (_, { to }) => void navigate(to), joinedTeam: () => membershipKnown(true) },
  });
  const state = useSelector(actor, (s) => (s.hasTag('loading') ? 'loading' : (s.value as string)));
  const preview = useSelector(actor, (s) => s.context.preview);
  const failure = useSelector(actor, (s) => s.context.failure);
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const authStatus = useDrawnSessionStatus();
  const signedInAs = useAuthSelector((s) => s.context.user?.email ?? null);

  if (state === 'loading' || authStatus === 'loading') return <PageSpinner onScreen />;
  if (state === 'invalid') {
    return (
      <Container maxW="2xl" py="12">
        <PageHeader title={t.invalidHeading} lead={t.invalidText} />
      </Container>
    );
  }
  if (state === 'failed' || !preview) {
    return (
      <Container maxW="2xl" py="12">
        <PageHeader title={t.title} lead={t.loadFailed} mb="4" />
        <Button onClick={() => actor.send({ type: 'invitation.retry' })}>{t.retry}</Button>
      </Container>
    );
  }
  const back = { from: { pathname: location.pathname }, email: preview.email } satisfies RedirectState;
  const mismatch = authStatus === 'signedIn' && signedInAs !== null && signedInAs.toLowerCase() !== preview.email;
  return (
    <Container maxW="2xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.heading(preview.team_name)} lead={t.lead(preview.inviter_name, preview.role)} mb="4" />
      <Stack gap="4">
        <Text>
          {t.forEmail(preview.email)} {t.expires(formatDate(preview.expires_at))}
        </Text>
        {failure && <Notice status="error" title={t.acceptFailed}>{say(failure, TEXTS)}</Notice>}
        {authStatus === 'signedOut' && (
          <>
            <Text color="fg.muted">{t.signedOutText}</Text>
            <HStack gap="3" wrap="wrap">
              <Button asChild colorPalette="brand">
                <RouterLink to="/login" state={back}>
                  {t.signIn}
                </RouterLink>
              </Button>
              <Button asChild variant="outline">
                <RouterLink to="/register" state={back}>
                  {t.register}
                </RouterLink>
              </Button>
            </HStack>
          </>
        )}
        {mismatch && (
          <Notice status="error" title={t.mismatchHeading}>
            <Stack gap="3" align="flex-start">
              <Text>{t.mismatchText(signedInAs, preview.email)}</Text>
              <Button size="sm" variant="outline" onClick={() => auth.send({ type: 'logout' })}>
                {t.signOut}
              </Button>
            </Stack>
          </Notice>
        )}
        {authStatus === 'signedIn' && !mismatch && (
          <Button alignSelf="flex-start" colorPalette="brand" size="lg" loading={busy} loadingText={t.accepting} onClick={() => actor.send({ type: 'invitation.accept' })}>
            {t.accept}
          </Button>
        )}
      </Stack>
    </Container>
  );
}

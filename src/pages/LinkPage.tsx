import { Alert, Button, Card, Container, DataList, Field, Heading, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useLocation, useSearchParams } from 'react-router-dom';
import { linkMachine } from '../../machines/link/link.machine';
import { useAuthRef, useAuthSelector, useDrawnSessionStatus } from '../app/auth';
import type { RedirectState } from '../app/RequireAuth';
import { RouterLink } from '../app/RouterLink';
import { PageHeader } from '../components/PageHeader';
import { FooterWaits, PageSpinner } from '../components/PageSpinner';
import * as messages from '../content/messages';
import { say } from '../content/say';
import type { DeviceGrant } from '../../machines/shared/api';
import { createChartContext, useSelector } from '../lib/chart';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.link;
const TEXTS = { link: t, auth: messages.auth };

/** The /link chart the page runs; tests hand in one with fake effects. */
export const LinkChart = createChartContext(linkMachine);

function Outcome({ title, text, again, children }: { title: string; text: string; again?: () => void; children?: React.ReactNode }) {
  return (
    <Stack gap="4">
      <Heading as="h2" size="lg">
        {title}
      </Heading>
      <Text color="fg.muted">{text}</Text>
      {again && (
        <Button alignSelf="flex-start" variant="outline" onClick={again}>
          {t.otherCode}
        </Button>
      )}
      {children}
    </Stack>
  );
}

/**
 * The code, entered or from the add-on's link. While it is looked up (`lookingUp`), the page is
 * still loading: the footer waits (`FooterWaits`, src/components/PageSpinner.tsx), since the request's details that follow are
 * taller than the form and would push it down the screen (issue 40).
 */
function CodeForm({ code, problem, busy, lookingUp, onChange, onSubmit }: { code: string; problem: string | null; busy: boolean; lookingUp: boolean; onChange(code: string): void; onSubmit(): void }) {
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {lookingUp && <FooterWaits />}
      <Stack gap="4">
        <Field.Root invalid={problem !== null} required>
          <Field.Label>{t.codeLabel}</Field.Label>
          <Input
            name="user_code"
            value={code}
            onChange={(event) => onChange(event.target.value)}
            autoComplete="one-time-code"
            autoCapitalize="characters"
            spellCheck={false}
            fontFamily="mono"
            fontSize="xl"
            letterSpacing="widest"
            maxLength={20}
          />
          {problem ? <Field.ErrorText>{problem}</Field.ErrorText> : <Field.HelperText>{t.codeHelp}</Field.HelperText>}
        </Field.Root>
        <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={busy} loadingText={t.checking}>
          {t.continue}
        </Button>
      </Stack>
    </form>
  );
}

function Confirm({ grant, problem, approving, denying, onApprove, onDeny, onOther }: {
  grant: DeviceGrant;
  problem: string | null;
  approving: boolean;
  denying: boolean;
  onApprove(): void;
  onDeny(): void;
  onOther(): void;
}) {
  const rows: Array<[string, string]> = [
    [t.codeShown, grant.user_code],
    [t.requestedAt, new Date(grant.requested_at).toLocaleString()],
    [t.requestedFrom, grant.ip],
    ...(grant.user_agent ? [[t.device, t.reportedAs(grant.user_agent)] as [string, string]] : []),
  ];
  const email = useAuthSelector((s) => s.context.user?.email ?? '');
  return (
    <Stack gap="5">
      <Heading as="h2" size="lg">
        {t.confirmTitle}
      </Heading>
      <Text>{t.confirmLead(grant.client_name)}</Text>
      <Text fontWeight="medium">{t.approvesAs(email)}</Text>
      <DataList.Root orientation="horizontal">
        {rows.map(([label, value]) => (
          <DataList.Item key={label}>
            <DataList.ItemLabel>{label}</DataList.ItemLabel>
            {/* The code in the add-on's own lettering, to compare it letter by letter. */}
            <DataList.ItemValue minW="0" overflowWrap="anywhere" {...(label === t.codeShown && { fontFamily: 'mono', fontWeight: 'semibold', letterSpacing: 'wider' })}>
              {value}
            </DataList.ItemValue>
          </DataList.Item>
        ))}
      </DataList.Root>
      <Alert.Root status="warning">
        <Alert.Indicator />
        <Alert.Description>{t.confirmWarning}</Alert.Description>
      </Alert.Root>
      {problem && (
        <Text color="fg.error" role="alert">
          {problem}
        </Text>
      )}
      <HStack gap="3" wrap="wrap">
        <Button colorPalette="brand" onClick={onApprove} loading={approving} loadingText={t.approving} disabled={denying}>
          {t.approve}
        </Button>
        <Button variant="outline" colorPalette="red" onClick={onDeny} loading={denying} loadingText={t.denying} disabled={approving}>
          {t.deny}
        </Button>
        <Button variant="ghost" onClick={onOther} disabled={approving || denying}>
          {t.otherCode}
        </Button>
      </HStack>
    </Stack>
  );
}

function LinkFlow({ signedIn }: { signedIn: boolean }) {
  const auth = useAuthRef();
  const [params] = useSearchParams();
  const location = useLocation();
  const actor = LinkChart.useActor({ input: { auth: signedIn ? auth : null, code: params.get('code') ?? '', linkKey: params.get('key') } });
  const view = useSelector(actor, (s) => ({
    state: typeof s.value === 'string' ? s.value : 'start',
    code: s.context.code,
    grant: s.context.grant,
    problem: s.context.problem && say(s.context.problem, TEXTS),
    busy: s.hasTag('busy'),
  }));
  const again = () => actor.send({ type: 'code.reenter' });
  const clientName = view.grant?.client_name ?? '';
  switch (view.state) {
    case 'signedOut':
      return (
        <Outcome title={t.signedOutTitle} text={t.signedOutText}>
          <Button asChild colorPalette="brand" alignSelf="flex-start">
            <RouterLink to="/login" state={{ from: { pathname: location.pathname, search: location.search } } satisfies RedirectState}>
              {t.signIn}
            </RouterLink>
          </Button>
        </Outcome>
      );
    case 'confirming':
    case 'approving':
    case 'denying':
      return (
        <Confirm
          grant={view.grant!}
          problem={view.problem}
          approving={view.state === 'approving'}
          denying={view.state === 'denying'}
          onApprove={() => actor.send({ type: 'link.approve' })}
          onDeny={() => actor.send({ type: 'link.deny' })}
          onOther={again}
        />
      );
    case 'approved':
      return (
        <Outcome title={t.approvedTitle} text={t.approvedText(clientName)}>
          <Button asChild variant="outline" alignSelf="flex-start">
            <RouterLink to="/profile">{t.manageSessions}</RouterLink>
          </Button>
        </Outcome>
      );
    case 'denied':
      return <Outcome title={t.deniedTitle} text={t.deniedText} />;
    case 'expired':
      return <Outcome title={t.expiredTitle} text={t.expiredText} again={again} />;
    case 'used':
      return <Outcome title={t.usedTitle} text={t.usedText} again={again} />;
    default:
      return (
        <CodeForm
          code={view.code}
          problem={view.problem}
          busy={view.busy}
          lookingUp={view.state === 'lookingUp'}
          onChange={(code) => actor.send({ type: 'code.change', code })}
          onSubmit={() => actor.send({ type: 'code.submit' })}
        />
      );
  }
}

/** Where a person approves the add-on's device sign-in (RFC 8628 §3.3), signed in or not yet. */
export default function LinkPage() {
  usePageTitle(t.title);
  const status = useDrawnSessionStatus();
  if (status === 'loading') return <PageSpinner />;
  return (
    <Container maxW="xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.title} lead={t.lead} mb="6" />
      <Card.Root variant="outline">
        <Card.Body>
          {/* A new chart when the person signs in or out here: the flow starts again with the address's code. */}
          <LinkFlow key={status} signedIn={status === 'signedIn'} />
        </Card.Body>
      </Card.Root>
    </Container>
  );
}

import {
  Alert,
  Box,
  Button,
  Card,
  Container,
  Field,
  Grid,
  GridItem,
  Heading,
  HStack,
  Input,
  Link,
  Stack,
  Text,
  Textarea,
} from '@chakra-ui/react';
import { useEffect, useRef } from 'react';
import { RouterLink } from '../app/RouterLink';
import { supportFormMachine, type SupportUser } from '../../machines/supportForm/supportForm.machine';
import { SUPPORT_FIELDS, type SupportField } from '../../machines/supportForm/supportForm.schema';
import { useAuthSelector } from '../app/auth';
import { planName } from '../../contract/plans';
import { toastEffect } from '../components/Toaster';
import type { User } from '../../machines/shared/api';
import { lineIcon } from '../components/icons';
import * as messages from '../content/messages';
import { say } from '../content/say';
import { usePageTitle } from '../lib/usePageTitle';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';
import { useEarlyInput } from '../lib/useEarlyInput';
import { createChartContext, useSelector } from '../lib/chart';
import { PageHeader } from '../components/PageHeader';

const MailIcon = lineIcon(
  <>
    <rect x="3" y="5" width="18" height="14" rx="2" />
    <path d="M3 7l9 6 9-6" />
  </>,
);
const ClockIcon = lineIcon(
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7v5l3 2" />
  </>,
);

const t = messages.support;
const TEXTS = { support: t };
const MAIL = { ...t.mail, unknownUser: t.unknownUser, unknownId: t.unknownId };

/** Professional and Team include priority support (the plan cards); everyone else gets the standard target. */
function useResponseText(): string {
  const plan = useAuthSelector((s) => s.context.user?.subscription_plan);
  return plan === 'professional' || plan === 'team' ? t.priorityResponseText(planName(plan)) : t.responseText;
}

function SidePanel() {
  const { supportEmail } = useRuntimeConfig();
  const responseText = useResponseText();
  return (
    <Stack gap="6" as="aside" aria-label={t.contactTitle}>
      <Card.Root variant="outline">
        <Card.Body gap="4">
          <Heading as="h2" size="md">
            {t.contactTitle}
          </Heading>
          <HStack align="flex-start" gap="3">
            <MailIcon boxSize="5" color="brand.fg" mt="0.5" />
            <Text fontSize="sm">
              {t.contactEmail}{' '}
              <Link href={`mailto:${supportEmail}`} color="brand.fg" fontWeight="medium">
                {supportEmail}
              </Link>
            </Text>
          </HStack>
          <HStack align="flex-start" gap="3">
            <ClockIcon boxSize="5" color="brand.fg" mt="0.5" />
            <Box>
              <Text fontSize="sm" fontWeight="medium">
                {t.responseTitle}
              </Text>
              <Text fontSize="sm" color="fg.muted">
                {responseText}
              </Text>
            </Box>
          </HStack>
        </Card.Body>
      </Card.Root>
      <Card.Root variant="outline">
        <Card.Body gap="4">
          <Heading as="h2" size="md">
            {t.faqTitle}
          </Heading>
          {t.faq.map((item) => (
            <Box key={item.q}>
              <Heading as="h3" size="sm" mb="1">
                {item.q}
              </Heading>
              <Text fontSize="sm" color="fg.muted">
                {item.a}
                {'link' in item && (
                  <>
                    {' '}
                    <Link asChild color="brand.fg">
                      <RouterLink to="/privacy">{item.link}</RouterLink>
                    </Link>
                    .
                  </>
                )}
              </Text>
            </Box>
          ))}
        </Card.Body>
      </Card.Root>
    </Stack>
  );
}

const FIELDS: Array<{ name: SupportField; label: string; type?: string; autoComplete?: string; multiline?: boolean }> = [
  { name: 'title', label: t.titleLabel },
  { name: 'description', label: t.descriptionLabel, multiline: true },
  { name: 'email', label: t.emailLabel, type: 'email', autoComplete: 'email' },
  { name: 'telephone', label: t.telephoneLabel, type: 'tel', autoComplete: 'tel' },
];

const FORM_ID = 'support-form';

function toSupportUser(user: User | null): SupportUser | null {
  return user && { id: user.id, full_name: user.full_name, email: user.email };
}

/** The chart the page runs; tests hand in one with fake effects. */
export const SupportFormChart = createChartContext(supportFormMachine);

export default function SupportPage() {
  usePageTitle(t.title);
  const { supportEmail } = useRuntimeConfig();
  const user = useAuthSelector((s) => s.context.user);
  const signedIn = useAuthSelector((s) => s.hasTag('signedIn'));
  const actor = SupportFormChart.useActor({
    input: { user: toSupportUser(user), supportEmail, mail: MAIL },
    effects: {
      notify: toastEffect,
      focusField: (_, field) => {
        if (field) document.querySelector<HTMLElement>(`#${FORM_ID} [name="${field}"]`)?.focus();
      },
    },
  });
  const values = useSelector(actor, (s) => s.context.values);
  const errors = useSelector(actor, (s) => s.context.errors);
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const send = actor.send;
  const submit = () => send({ type: 'form.submit' });
  const edit = (field: SupportField, value: string) => send({ type: 'draft.change', field, value });
  useEffect(() => send({ type: 'session.update', user: toSupportUser(user) }), [user, send]);
  const formRef = useRef<HTMLFormElement>(null);
  useEarlyInput(formRef, SUPPORT_FIELDS, (typed) => send({ type: 'draft.fill', values: typed }));

  return (
    <Container maxW="6xl" py={{ base: '10', md: '16' }}>
      <PageHeader title={t.heading} lead={t.lead} mb="10" />
      <Grid templateColumns={{ base: '1fr', lg: '2fr 1fr' }} gap="8" alignItems="start">
        <Card.Root variant="outline">
          <Card.Body gap="5">
            <Heading as="h2" size="lg">
              {t.formTitle}
            </Heading>
            {!signedIn && (
              <Alert.Root status="info">
                <Alert.Indicator />
                <Alert.Description>
                  {t.signInNotice}{' '}
                  <Link asChild fontWeight="semibold">
                    <RouterLink to="/login" state={{ from: { pathname: '/support' } }}>
                      {t.signInLink}
                    </RouterLink>
                  </Link>
                </Alert.Description>
              </Alert.Root>
            )}
            <form
              ref={formRef}
              id={FORM_ID}
              noValidate
              onSubmit={(event) => {
                event.preventDefault();
                submit();
              }}
              onKeyDown={(event) => {
                // A disabled submit button blocks the browser's Enter-to-submit; a signed-out
                // visitor pressing Enter should still hear why nothing was sent.
                if (event.key === 'Enter' && (event.target as HTMLElement).tagName === 'INPUT' && !signedIn) {
                  event.preventDefault();
                  submit();
                }
              }}
            >
              <Grid templateColumns={{ base: '1fr', md: '1fr 1fr' }} gap="4">
                {FIELDS.map(({ name, label, type, autoComplete, multiline }) => {
                  const control = {
                    name,
                    value: values[name],
                    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => edit(name, event.target.value),
                  };
                  return (
                    <GridItem key={name} colSpan={name === 'email' || name === 'telephone' ? 1 : { base: 1, md: 2 }}>
                      <Field.Root required invalid={Boolean(errors[name])}>
                        <Field.Label>
                          {label}
                          <Field.RequiredIndicator />
                        </Field.Label>
                        {multiline ? <Textarea rows={6} {...control} /> : <Input type={type} autoComplete={autoComplete} {...control} />}
                        <Field.ErrorText>{errors[name] && say(errors[name], TEXTS)}</Field.ErrorText>
                      </Field.Root>
                    </GridItem>
                  );
                })}
              </Grid>
              <Button type="submit" colorPalette="brand" mt="5" disabled={!signedIn || busy} loading={busy} loadingText={t.busy}>
                {t.submit}
              </Button>
            </form>
          </Card.Body>
        </Card.Root>
        <SidePanel />
      </Grid>
    </Container>
  );
}

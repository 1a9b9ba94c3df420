import { Button, Card, Container, DataList, Grid, Heading, Stack, Text } from '@chakra-ui/react';
import { useFormik } from 'formik';
import { useEffect, useRef } from 'react';
import { RouterLink } from '../app/RouterLink';
import { changePasswordMachine } from '../../machines/changePassword/changePassword.machine';
import type { ChangePasswordValues } from '../../machines/changePassword/changePassword.schema';
import { currentPlanOf } from '../../machines/subscription/subscription.machine';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { FormField, ValidatedForm, validateWithSchema } from '../components/FormField';
import { say } from '../content/say';
import { showToast, toastEffect } from '../components/Toaster';
import * as messages from '../content/messages';
import { planName } from '../../contract/plans';
import { usePageTitle } from '../lib/usePageTitle';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';
import { useSubscriptionActor } from '../app/subscription';
import { createChartContext, useSelector } from '../lib/chart';
import { PageHeader } from '../components/PageHeader';
import { SectionCard } from '../components/SectionCard';
import { CredentialsSections } from '../components/CredentialsSections';
import { PasskeysSection } from '../components/PasskeysSection';
import { AccountExport } from '../components/AccountExport';
import { TwoFactorSection } from '../components/TwoFactorSection';

const t = messages.profile;
const PROFILE_TEXTS = { profile: t };
// The schema (and yup with it) loads with the form's first check, or once the form is on screen.
const validate = validateWithSchema<ChangePasswordValues>(
  () => import(/* webpackChunkName: "profile-schemas" */ '../../machines/changePassword/changePassword.schema').then((schemas) => schemas.changePasswordSchema),
  PROFILE_TEXTS,
);
const EMPTY_PASSWORDS: ChangePasswordValues = { current_password: '', new_password: '', confirm_password: '' };

/** The change-password chart the page runs; tests hand in one with fake effects. */
export const ChangePasswordChart = createChartContext(changePasswordMachine);

function ChangePasswordForm() {
  const auth = useAuthRef();
  const actor = ChangePasswordChart.useActor({ input: { auth }, effects: { notify: toastEffect } });
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const email = useAuthSelector((s) => s.context.user?.email ?? '');
  const form = useFormik<ChangePasswordValues>({
    initialValues: EMPTY_PASSWORDS,
    validate,
    validateOnBlur: false,
    onSubmit: (values) => actor.send({ type: 'password.submit', ...values }),
  });
  const { resetForm, setFieldError } = form;
  const fields = useRef<HTMLDivElement>(null);
  // A success clears the form; a new password the server refuses gets its reason under it, and the
  // focus, so a screen reader reads the two together (the chart says when).
  useEffect(() => {
    const changed = actor.on('password.changed', () => resetForm());
    const refused = actor.on('password.refused', ({ field, message }) => {
      setFieldError(field, say(message, PROFILE_TEXTS));
      fields.current?.querySelector<HTMLInputElement>(`input[name="${field}"]`)?.focus();
    });
    return () => {
      changed.unsubscribe();
      refused.unsubscribe();
    };
  }, [actor, resetForm, setFieldError]);
  return (
    <SectionCard title={t.passwordTitle} headingId="change-password" gap="5">
      <ValidatedForm form={form}>
        <Stack ref={fields} gap="4" maxW="md">
          {/* Whose password this is, for password managers (without it Chromium logs that the form lacks one). */}
          <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
          <FormField form={form} name="current_password" label={t.currentPassword} type="password" autoComplete="current-password" required />
          <FormField form={form} name="new_password" label={t.newPassword} type="password" autoComplete="new-password" required />
          <FormField form={form} name="confirm_password" label={t.confirmNewPassword} type="password" autoComplete="new-password" required />
          <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={busy} loadingText={t.updating}>
            {t.updatePassword}
          </Button>
        </Stack>
      </ValidatedForm>
    </SectionCard>
  );
}

function SideCard({ title, children, danger }: { title: string; children: React.ReactNode; danger?: boolean }) {
  return (
    <SectionCard title={title} headingSize="md" headingColor={danger ? 'red.fg' : undefined} gap="3" borderColor={danger ? 'red.muted' : undefined}>
      {children}
    </SectionCard>
  );
}

export default function ProfilePage() {
  usePageTitle(t.title);
  const user = useAuthSelector((s) => s.context.user);
  const { supportEmail } = useRuntimeConfig();
  // The same chart as the subscription page, so the plan is fresh after a checkout in another tab.
  const subscription = useSubscriptionActor();
  const plan = useSelector(subscription, (s) => currentPlanOf(s.context));
  if (!user) return null;
  const fields: Array<[string, string]> = [
    [t.fullName, user.full_name],
    [t.username, user.username],
    [t.email, user.email],
    [messages.verifyEmail.statusLabel, user.email_verified ? messages.verifyEmail.verified : messages.verifyEmail.unverified],
    [t.memberSince, new Date(user.created_at).toLocaleDateString()],
  ];
  const requestDeletion = () => {
    // No server call (product spec §7): the request goes through support.
    if (!window.confirm(t.deleteConfirm)) return;
    showToast({ type: 'info', title: { text: t.deletionRequested }, description: { text: t.deletionRequestedText(supportEmail) } });
  };
  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.title} mb="8" />
      <Grid templateColumns={{ base: 'minmax(0, 1fr)', lg: 'minmax(0, 2fr) minmax(0, 1fr)' }} gap="6" alignItems="start">
        <Stack gap="6">
          <Card.Root as="section" aria-labelledby="account-details" variant="outline">
            <Card.Body gap="5">
              <Stack gap="1">
                <Heading as="h2" id="account-details" size="lg">
                  {t.detailsTitle}
                </Heading>
                <Text color="fg.muted" fontSize="sm">
                  {t.detailsNote}
                </Text>
              </Stack>
              <DataList.Root orientation="horizontal">
                {fields.map(([label, value]) => (
                  <DataList.Item key={label}>
                    <DataList.ItemLabel>{label}</DataList.ItemLabel>
                    {/* A long e-mail address wraps instead of widening the page on a phone. */}
                    <DataList.ItemValue minW="0" overflowWrap="anywhere">
                      {value}
                    </DataList.ItemValue>
                  </DataList.Item>
                ))}
              </DataList.Root>
            </Card.Body>
          </Card.Root>
          <ChangePasswordForm />
          <TwoFactorSection />
          <PasskeysSection />
          <CredentialsSections />
        </Stack>
        <Stack gap="6" as="aside">
          <SideCard title={t.planTitle}>
            <Text fontSize="2xl" fontWeight="bold">
              {planName(plan)}
            </Text>
            <Button asChild colorPalette="brand" variant="outline">
              <RouterLink to="/subscription">{t.manageSubscription}</RouterLink>
            </Button>
          </SideCard>
          <SideCard title={messages.usage.exportHeading}>
            <AccountExport />
          </SideCard>
          <SideCard title={t.helpTitle}>
            <Text color="fg.muted" fontSize="sm">
              {t.helpText}
            </Text>
            <Button asChild variant="outline">
              <RouterLink to="/support">{t.contactSupport}</RouterLink>
            </Button>
          </SideCard>
          <SideCard title={t.dangerZone} danger>
            <Text color="fg.muted" fontSize="sm">
              {t.dangerText}
            </Text>
            <Button colorPalette="red" variant="outline" onClick={requestDeletion}>
              {t.deleteAccount}
            </Button>
          </SideCard>
        </Stack>
      </Grid>
    </Container>
  );
}

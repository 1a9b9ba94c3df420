import { Alert, Box, Button, Code, HStack, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { useFormik } from 'formik';
import { lazy, Suspense } from 'react';
import { useAuthRef } from '../app/auth';
import { twoFactorMachine, type TwoFactorSnapshot } from '../../machines/twoFactor/twoFactor.machine';
import type { PasswordValues, TotpCodeValues } from '../../machines/twoFactor/twoFactor.schema';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { createChartContext, useSelector } from '../lib/chart';
import { FormField, ValidatedForm, validateWithSchema } from './FormField';
import { SectionCard } from './SectionCard';
import { toastEffect } from './Toaster';

const t = messages.security;
const TEXTS = { security: t, ...FAILURE_TEXTS };
// The schemas (and yup with them) load with a form's first check, or once it is on screen.
const schemas = () => import(/* webpackChunkName: "profile-schemas" */ '../../machines/twoFactor/twoFactor.schema');
const validateCode = validateWithSchema<TotpCodeValues>(() => schemas().then((s) => s.totpCodeSchema), TEXTS);
const validatePassword = validateWithSchema<PasswordValues>(() => schemas().then((s) => s.passwordSchema), TEXTS);

/** The two-step sign-in chart the section runs; tests hand in one with fake effects. */
export const TwoFactorChart = createChartContext(twoFactorMachine);

/*
 * The QR code's encoder is a chunk of its own, asked for when "Set up" is pressed (the setup's
 * call takes longer) and drawn when it is in: the profile shows no code until then. The image,
 * its name and its room are there at once; only its squares wait.
 */
const loadQrPath = () => import(/* webpackChunkName: "qr-code" */ './QrPath');
const QrPath = lazy(loadQrPath);

/** The otpauth URI as a QR code: drawn as one SVG path (no inline styles, which the page's policy refuses). */
function QrCode({ text }: { text: string }) {
  return (
    <Box bg="white" p="2" borderRadius="md" borderWidth="1px" w="52" h="52" flexShrink={0}>
      <Suspense fallback={<svg role="img" aria-label={t.qrLabel} width="100%" height="100%" />}>
        <QrPath text={text} label={t.qrLabel} />
      </Suspense>
    </Box>
  );
}

/** The key in groups of four, as apps ask for it. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

const selectView = (s: TwoFactorSnapshot) => ({
  step: s.matches('loading')
    ? 'loading'
    : s.matches('failed')
      ? 'failed'
      : s.matches('settingUp') || s.matches('confirming')
        ? 'settingUp'
        : s.matches('askingDisable') || s.matches('disabling')
          ? 'disable'
          : s.matches('askingRenew') || s.matches('renewing')
            ? 'renew'
            : s.matches('showingCodes')
              ? 'codes'
              : 'ready',
  busy: s.hasTag('busy'),
  status: s.context.status,
  setup: s.context.setup,
  codes: s.context.codes,
  copied: s.context.copied,
  failure: s.context.failure && say(s.context.failure, TEXTS),
});

function Failure({ text }: { text: string | null }) {
  return (
    <Text role="alert" color="fg.error" fontSize="sm" hidden={!text}>
      {text}
    </Text>
  );
}

function CodeForm({ send, busy, failure }: { send(code: string): void; busy: boolean; failure: string | null }) {
  const form = useFormik<TotpCodeValues>({ initialValues: { code: '' }, validate: validateCode, validateOnBlur: false, onSubmit: (v) => send(v.code.trim()) });
  return (
    <ValidatedForm form={form}>
      <Stack gap="3" maxW="xs">
        <FormField form={form} name="code" label={t.codeLabel} autoComplete="one-time-code" inputMode="numeric" required />
        <Failure text={failure} />
        <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={busy} loadingText={t.turningOn}>
          {t.turnOn}
        </Button>
      </Stack>
    </ValidatedForm>
  );
}

function PasswordForm(props: { lead: string; submit: string; busyText: string; danger?: boolean; busy: boolean; failure: string | null; send(password: string): void; cancel(): void }) {
  const form = useFormik<PasswordValues>({ initialValues: { password: '' }, validate: validatePassword, validateOnBlur: false, onSubmit: (v) => props.send(v.password) });
  return (
    <ValidatedForm form={form}>
      <Stack gap="3" maxW="sm">
        <Text fontSize="sm">{props.lead}</Text>
        <FormField form={form} name="password" label={t.password} type="password" autoComplete="current-password" autoFocus required />
        <Failure text={props.failure} />
        <HStack gap="2" wrap="wrap">
          <Button type="submit" colorPalette={props.danger ? 'red' : 'brand'} loading={props.busy} loadingText={props.busyText}>
            {props.submit}
          </Button>
          <Button variant="outline" onClick={props.cancel} disabled={props.busy}>
            {t.cancel}
          </Button>
        </HStack>
      </Stack>
    </ValidatedForm>
  );
}

/** The profile's "Two-step sign-in": status, set-up with a QR code, recovery codes shown once, turning it off. */
export function TwoFactorSection() {
  const auth = useAuthRef();
  const actor = TwoFactorChart.useActor({ input: { auth }, effects: { notify: toastEffect, secondFactorAdded: () => auth.send({ type: 'user.secondFactorAdded' }) } });
  // The QR code's encoder is asked for with the set-up's call, so it is in when the code is shown.
  const startSetup = () => {
    void loadQrPath();
    actor.send({ type: 'twoFactor.setup' });
  };
  const view = useSelector(actor, selectView);
  const { status } = view;
  return (
    <SectionCard title={t.title} lead={t.lead} headingId="two-step-sign-in" busy={view.step === 'loading'} gap="5">
      {view.step === 'loading' && <Text color="fg.muted">{t.loading}</Text>}
      {view.step === 'failed' && (
        <Stack gap="2" align="flex-start">
          <Failure text={view.failure} />
          <Button variant="outline" size="sm" onClick={() => actor.send({ type: 'twoFactor.retry' })}>
            {t.retry}
          </Button>
        </Stack>
      )}
      {status && view.step !== 'loading' && view.step !== 'failed' && view.step !== 'codes' && (
        <Stack gap="1">
          <Text fontWeight="medium">{status.totp_enabled && status.totp_enabled_at ? t.on(new Date(status.totp_enabled_at).toLocaleDateString()) : t.off}</Text>
          {status.totp_enabled && (
            <Text color="fg.muted" fontSize="sm">
              {t.codesLeft(status.recovery_codes_left)}
            </Text>
          )}
        </Stack>
      )}
      {view.step === 'ready' && status && (
        <Stack gap="2" align="flex-start">
          <Failure text={view.failure} />
          {status.totp_enabled ? (
            <HStack gap="2" wrap="wrap">
              <Button variant="outline" onClick={() => actor.send({ type: 'twoFactor.askRenew' })}>
                {t.newCodes}
              </Button>
              <Button variant="outline" colorPalette="red" onClick={() => actor.send({ type: 'twoFactor.askDisable' })}>
                {t.turnOff}
              </Button>
            </HStack>
          ) : (
            <Button colorPalette="brand" loading={view.busy} loadingText={t.settingUpBusy} onClick={startSetup}>
              {t.setUp}
            </Button>
          )}
        </Stack>
      )}
      {view.step === 'settingUp' && view.setup && (
        <Stack gap="4">
          <Text fontSize="sm">{t.scan}</Text>
          <Stack direction={{ base: 'column', sm: 'row' }} gap="5" align={{ base: 'flex-start', sm: 'center' }}>
            <QrCode text={view.setup.otpauth_url} />
            <Stack gap="1" minW="0">
              <Text fontSize="sm" color="fg.muted">
                {t.manualKey}
              </Text>
              <Code fontSize="md" px="2" py="1" overflowWrap="anywhere" whiteSpace="normal" aria-label={t.manualKey}>
                {grouped(view.setup.secret)}
              </Code>
            </Stack>
          </Stack>
          <CodeForm busy={view.busy} failure={view.failure} send={(code) => actor.send({ type: 'twoFactor.confirm', code })} />
          <Button variant="plain" size="sm" alignSelf="flex-start" color="fg.muted" onClick={() => actor.send({ type: 'twoFactor.cancel' })} disabled={view.busy}>
            {t.cancel}
          </Button>
        </Stack>
      )}
      {view.step === 'disable' && (
        <PasswordForm
          lead={t.turnOffLead}
          submit={t.turnOff}
          busyText={t.turningOff}
          danger
          busy={view.busy}
          failure={view.failure}
          send={(password) => actor.send({ type: 'twoFactor.password', password })}
          cancel={() => actor.send({ type: 'twoFactor.cancel' })}
        />
      )}
      {view.step === 'renew' && (
        <PasswordForm
          lead={t.newCodesLead}
          submit={t.newCodes}
          busyText={t.newCodesBusy}
          busy={view.busy}
          failure={view.failure}
          send={(password) => actor.send({ type: 'twoFactor.password', password })}
          cancel={() => actor.send({ type: 'twoFactor.cancel' })}
        />
      )}
      {view.step === 'codes' && view.codes && (
        <Stack gap="4">
          <Alert.Root status="warning">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>{t.codesTitle}</Alert.Title>
              <Alert.Description>{t.codesLead}</Alert.Description>
            </Alert.Content>
          </Alert.Root>
          <SimpleGrid as="ul" aria-label={t.codesLabel} columns={{ base: 2, sm: 2 }} gap="2" maxW="sm" listStyleType="none">
            {view.codes.map((code) => (
              <Box as="li" key={code} fontFamily="mono" fontSize="md" px="2" py="1" bg="bg.muted" borderRadius="sm" textAlign="center">
                {code}
              </Box>
            ))}
          </SimpleGrid>
          <HStack gap="2" wrap="wrap">
            <Button variant="outline" onClick={() => actor.send({ type: 'twoFactor.copy' })}>
              {t.copy}
            </Button>
            <Button variant="outline" onClick={() => actor.send({ type: 'twoFactor.download' })}>
              {t.download}
            </Button>
            <Button colorPalette="brand" onClick={() => actor.send({ type: 'twoFactor.codesSaved' })}>
              {t.saved}
            </Button>
          </HStack>
          <Text role="status" fontSize="sm" color={view.copied === 'copyFailed' ? 'fg.error' : 'green.fg'}>
            {view.copied === 'copied' ? t.copied : view.copied === 'copyFailed' ? t.copyFailed : ''}
          </Text>
        </Stack>
      )}
    </SectionCard>
  );
}

import { Button, Stack, Text } from '@chakra-ui/react';
import { useFormik } from 'formik';
import type { SecondFactorValues } from '../../machines/auth/auth.schemas';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { AuthCard, AuthForm } from './AuthCard';
import { FormField, validateWithSchema } from './FormField';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { usePageTitle } from '../lib/usePageTitle';

const step = messages.secondStep;
const schemas = () => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas');
const validateTotp = validateWithSchema<SecondFactorValues>(() => schemas().then((s) => s.secondFactorSchemas.totp), { secondStep: step });
const validateRecovery = validateWithSchema<SecondFactorValues>(() => schemas().then((s) => s.secondFactorSchemas.recovery_code), { secondStep: step });

/** The second step of a sign-in: the app's code, or a recovery code; the failure stays under the field until the next try. */
export default function SecondStep() {
  usePageTitle(step.title);
  const auth = useAuthRef();
  const busy = useAuthSelector((s) => s.hasTag('busy'));
  const secondFactor = useAuthSelector((s) => s.context.secondFactor);
  const failure = useAuthSelector((s) => s.context.failure);
  const method = secondFactor?.method ?? 'totp';
  const form = useFormik<SecondFactorValues>({
    initialValues: { code: '' },
    validate: method === 'totp' ? validateTotp : validateRecovery,
    validateOnBlur: false,
    onSubmit: (values) => auth.send({ type: 'mfa.submit', code: values.code.trim() }),
  });
  const other = method === 'totp' ? 'recovery_code' : 'totp';
  const switchTo = (to: 'totp' | 'recovery_code') => {
    form.resetForm();
    auth.send({ type: 'mfa.method', method: to });
  };
  return (
    <AuthCard heading={step.heading} lead={method === 'totp' ? step.totpLead : step.recoveryLead}>
      <AuthForm form={form} preload={method === 'totp' ? validateTotp.preload : validateRecovery.preload} busy={busy} submitText={step.submit} busyText={step.busy}>
        <FormField
          key={method}
          form={form}
          name="code"
          label={method === 'totp' ? step.totpLabel : step.recoveryLabel}
          autoComplete="one-time-code"
          inputMode={method === 'totp' ? 'numeric' : 'text'}
          autoFocus
          required
          {...(failure && !form.errors.code ? { 'aria-describedby': 'second-step-failure' } : {})}
        />
        {failure && (
          <Text id="second-step-failure" color="fg.error" fontSize="sm" role="alert">
            {say(failure.description, FAILURE_TEXTS)}
          </Text>
        )}
      </AuthForm>
      <Stack gap="2" align="center">
        {secondFactor?.methods.includes(other) && (
          <Button variant="plain" size="sm" color="brand.fg" onClick={() => switchTo(other)} disabled={busy}>
            {method === 'totp' ? step.useRecovery : step.useTotp}
          </Button>
        )}
        {secondFactor?.methods.includes('webauthn') && (
          <Button variant="outline" size="sm" onClick={() => auth.send({ type: 'mfa.passkey' })} disabled={busy}>
            {step.usePasskey}
          </Button>
        )}
        <Button variant="plain" size="sm" color="fg.muted" onClick={() => auth.send({ type: 'mfa.cancel' })} disabled={busy}>
          {step.back}
        </Button>
      </Stack>
    </AuthCard>
  );
}

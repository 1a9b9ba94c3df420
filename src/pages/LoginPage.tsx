import { Button, Link, Stack, Text } from '@chakra-ui/react';
import { useFormik } from 'formik';
import { Navigate, useLocation } from 'react-router-dom';
import { RouterLink } from '../app/RouterLink';
import type { LoginValues, SecondFactorValues } from '../../machines/auth/auth.schemas';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { prefilledEmail, redirectTarget } from '../app/RequireAuth';
import { AuthCard, AuthForm, AuthSwitch } from '../components/AuthCard';
import { FormField, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.login;
const schemas = () => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas');
const validate = validateWithSchema<LoginValues>(() => schemas().then((s) => s.loginSchema), { login: t });
const validateTotp = validateWithSchema<SecondFactorValues>(() => schemas().then((s) => s.secondFactorSchemas.totp), { login: t });
const validateRecovery = validateWithSchema<SecondFactorValues>(() => schemas().then((s) => s.secondFactorSchemas.recovery_code), { login: t });

/** The second step of a sign-in: the app's code, or a recovery code; the failure stays under the field until the next try. */
function SecondStep() {
  const step = t.secondStep;
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
        <Button variant="plain" size="sm" color="fg.muted" onClick={() => auth.send({ type: 'mfa.cancel' })} disabled={busy}>
          {step.back}
        </Button>
      </Stack>
    </AuthCard>
  );
}

export default function LoginPage() {
  const secondStep = useAuthSelector((s) => s.hasTag('secondFactor'));
  return secondStep ? <SecondStep /> : <PasswordStep />;
}

function PasswordStep() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const busy = useAuthSelector((s) => s.hasTag('busy'));
  const settledIn = useAuthSelector((s) => s.matches({ signedIn: 'active' }));
  const location = useLocation();
  const redirectTo = redirectTarget(location.state);
  const form = useFormik<LoginValues>({
    initialValues: { email: prefilledEmail(location.state), password: '' },
    validate,
    validateOnBlur: false,
    onSubmit: (values) => auth.send({ type: 'login.submit', email: values.email.trim(), password: values.password, redirectTo }),
  });

  // Already signed in (not the moment right after signing in here, which redirects after the welcome).
  if (settledIn && !busy && form.submitCount === 0) return <Navigate to={redirectTo ?? '/dashboard'} replace />;

  return (
    <AuthCard heading={t.heading} lead={t.lead} footer={<AuthSwitch question={t.noAccount} linkText={t.toRegister} to="/register" homeText={t.home} />}>
      <AuthForm form={form} preload={validate.preload} busy={busy} submitText={t.submit} busyText={t.busy}>
        <FormField form={form} name="email" label={t.email} type="email" autoComplete="email" required />
        <FormField form={form} name="password" label={t.password} type="password" autoComplete="current-password" required />
        <Link asChild alignSelf="flex-end" fontSize="sm" color="brand.fg">
          <RouterLink to="/forgot-password">{t.forgot}</RouterLink>
        </Link>
      </AuthForm>
    </AuthCard>
  );
}

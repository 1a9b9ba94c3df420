import { Box, Button, HStack, Link, Text } from '@chakra-ui/react';
import { lazy, Suspense } from 'react';
import { useFormik } from 'formik';
import { Navigate, useLocation } from 'react-router-dom';
import { RouterLink } from '../app/RouterLink';
import type { LoginValues } from '../../machines/auth/auth.schemas';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { prefilledEmail, redirectTarget } from '../app/RequireAuth';
import { AuthCard, AuthForm, AuthSwitch } from '../components/AuthCard';
import { PageSpinner } from '../components/PageSpinner';
import { FormField, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { usePageTitle } from '../lib/usePageTitle';
import { usePasskeySupport } from '../lib/usePasskeySupport';

const t = messages.login;
const schemas = () => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas');
const validate = validateWithSchema<LoginValues>(() => schemas().then((s) => s.loginSchema), { login: t });
/** The second step is its own chunk: only accounts with a second factor need it, after the password. */
const SecondStep = lazy(() => import(/* webpackChunkName: "second-step" */ '../components/SecondStep'));

export default function LoginPage() {
  const secondStep = useAuthSelector((s) => s.hasTag('secondFactor'));
  return secondStep ? (
    <Suspense fallback={<PageSpinner />}>
      <SecondStep />
    </Suspense>
  ) : (
    <PasswordStep />
  );
}

function PasswordStep() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const busy = useAuthSelector((s) => s.hasTag('busy'));
  const settledIn = useAuthSelector((s) => s.matches({ signedIn: 'active' }));
  const passkeys = usePasskeySupport();
  const passkeyBusy = useAuthSelector((s) => s.matches({ signedOut: 'signingInWithPasskey' }));
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
      {/* Its room is kept while the browser's support is not known yet (the prerendered page and the
          first moment of the app), so the footer does not move when it shows; gone only where
          passkeys cannot work. */}
      {passkeys !== false && (
        <Box visibility={passkeys ? undefined : 'hidden'}>
          <HStack gap="3" my="5" aria-hidden>
            <Box flex="1" borderTopWidth="1px" />
            <Text color="fg.muted" fontSize="sm">
              {t.or}
            </Text>
            <Box flex="1" borderTopWidth="1px" />
          </HStack>
          <Button
            variant="outline"
            size="lg"
            width="full"
            loading={passkeyBusy}
            loadingText={t.passkeyBusy}
            disabled={busy}
            onClick={() => auth.send({ type: 'passkey.submit', redirectTo })}
          >
            {t.passkey}
          </Button>
        </Box>
      )}
    </AuthCard>
  );
}

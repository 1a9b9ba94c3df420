import { useFormik } from 'formik';
import { Navigate, useLocation } from 'react-router-dom';
import type { RegisterValues } from '../../machines/auth/auth.schemas';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { prefilledEmail, redirectTarget } from '../app/RequireAuth';
import { AuthCard, AuthForm, AuthSwitch } from '../components/AuthCard';
import { FormField, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.register;
const validate = validateWithSchema<RegisterValues>(() => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas').then((schemas) => schemas.registerSchema), { register: t });

export default function RegisterPage() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const busy = useAuthSelector((s) => s.hasTag('busy'));
  const signedIn = useAuthSelector((s) => s.hasTag('signedIn'));
  const { state } = useLocation();
  const redirectTo = redirectTarget(state);
  const form = useFormik<RegisterValues>({
    initialValues: { full_name: '', username: '', email: prefilledEmail(state), password: '', confirm_password: '' },
    validate,
    validateOnChange: false,
    validateOnBlur: false,
    onSubmit: (values) =>
      auth.send({
        type: 'register.submit',
        full_name: values.full_name.trim(),
        username: values.username.trim(),
        email: values.email.trim(),
        password: values.password,
        redirectTo,
      }),
  });

  if (signedIn && form.submitCount === 0) return <Navigate to={redirectTo ?? '/dashboard'} replace />;

  return (
    <AuthCard heading={t.heading} lead={t.lead} footer={<AuthSwitch question={t.haveAccount} linkText={t.toLogin} to="/login" homeText={t.home} />}>
      <AuthForm form={form} preload={validate.preload} busy={busy} submitText={t.submit} busyText={t.busy}>
        <FormField form={form} name="full_name" label={t.fullName} autoComplete="name" required clearErrorOnChange />
        <FormField form={form} name="username" label={t.username} autoComplete="username" required clearErrorOnChange />
        <FormField form={form} name="email" label={t.email} type="email" autoComplete="email" required clearErrorOnChange />
        <FormField form={form} name="password" label={t.password} type="password" autoComplete="new-password" required clearErrorOnChange />
        <FormField
          form={form}
          name="confirm_password"
          label={t.confirmPassword}
          type="password"
          autoComplete="new-password"
          required
          clearErrorOnChange
        />
      </AuthForm>
    </AuthCard>
  );
}

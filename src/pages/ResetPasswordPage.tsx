import { Button, Link, Stack } from '@chakra-ui/react';
import { useFormik } from 'formik';
import { useSearchParams } from 'react-router-dom';
import { RouterLink } from '../app/RouterLink';
import { resetPasswordMachine } from '../../machines/resetPassword/resetPassword.machine';
import { AuthCard, AuthForm } from '../components/AuthCard';
import { Notice } from '../components/Notice';
import { FormField, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { usePageTitle } from '../lib/usePageTitle';
import { createChartContext, useSelector } from '../lib/chart';

const t = messages.resetPassword;

/** The form's chart; tests may hand in one with a fake request. */
export const ResetPasswordChart = createChartContext(resetPasswordMachine);
const validate = validateWithSchema(() => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas').then((schemas) => schemas.resetPasswordSchema), { register: messages.register });

export default function ResetPasswordPage() {
  usePageTitle(t.title);
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const actor = ResetPasswordChart.useActor();
  const failure = useSelector(actor, (s) => s.context.failure);
  const invalidToken = useSelector(actor, (s) => s.context.invalidToken);
  const saved = useSelector(actor, (s) => s.hasTag('done'));
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const savePassword = (newPassword: string) => actor.send({ type: 'form.submit', token, new_password: newPassword });
  const form = useFormik({
    initialValues: { new_password: '', confirm_password: '' },
    validate,
    validateOnBlur: false,
    onSubmit: (values) => savePassword(values.new_password),
  });

  const requestNew = (
    <Link asChild color="brand.fg" fontWeight="medium">
      <RouterLink to="/forgot-password">{t.requestNew}</RouterLink>
    </Link>
  );

  let body;
  if (!token) {
    body = (
      <Notice status="error">
        {t.missingToken} {requestNew}
      </Notice>
    );
  } else if (saved) {
    body = (
      <Stack gap="4">
        <Notice status="success" title={t.doneTitle}>{t.doneText}</Notice>
        <Button asChild colorPalette="brand" size="lg">
          <RouterLink to="/login">{t.toLogin}</RouterLink>
        </Button>
      </Stack>
    );
  } else {
    body = (
      <AuthForm form={form} preload={validate.preload} busy={busy} submitText={t.submit} busyText={t.busy}>
        {failure && (
          <Notice status="error" title={t.failedTitle}>
            {say(failure, FAILURE_TEXTS)} {invalidToken && requestNew}
          </Notice>
        )}
        <FormField form={form} name="new_password" label={t.newPassword} type="password" autoComplete="new-password" required />
        <FormField form={form} name="confirm_password" label={t.confirmPassword} type="password" autoComplete="new-password" required />
      </AuthForm>
    );
  }
  return (
    <AuthCard heading={t.heading} lead={t.lead}>
      {body}
    </AuthCard>
  );
}

import { Button, Link, Stack } from '@chakra-ui/react';
import { useMachine } from '@xstate/react';
import { useFormik } from 'formik';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { RouterLink } from '../app/RouterLink';
import { fromPromise } from 'xstate';
import { unreachable } from '../../machines/failures';
import { submissionMachine } from '../../machines/submission/submission.machine';
import { AuthCard } from '../components/AuthCard';
import { Notice } from '../components/Notice';
import { FormField, ValidatedForm, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { authApi } from '../lib/api';
import { usePageTitle } from '../lib/usePageTitle';
import { actorOptions } from '../lib/inspector';

const t = messages.resetPassword;
const validate = validateWithSchema(() => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas').then((schemas) => schemas.resetPasswordSchema));

export default function ResetPasswordPage() {
  usePageTitle(t.title);
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [logic] = useState(() =>
    submissionMachine.provide({
      actors: {
        submit: fromPromise(({ input, signal }) =>
          authApi.resetPassword({ token: input.token ?? '', new_password: input.new_password ?? '' }, { signal }),
        ),
      },
    }),
  );
  const [state, send] = useMachine(logic, actorOptions());
  const form = useFormik({
    initialValues: { new_password: '', confirm_password: '' },
    validate,
    validateOnBlur: false,
    onSubmit: (values) => send({ type: 'form.submit', values: { token, new_password: values.new_password } }),
  });
  const failure = state.context.error;

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
  } else if (state.hasTag('done')) {
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
      <ValidatedForm form={form} preload={validate.preload}>
        <Stack gap="4">
          {failure && (
            <Notice status="error" title={t.failedTitle}>
              {unreachable(failure) ?? failure.message}{' '}
              {failure.code === 'invalid_reset_token' && requestNew}
            </Notice>
          )}
          <FormField form={form} name="new_password" label={t.newPassword} type="password" autoComplete="new-password" required />
          <FormField form={form} name="confirm_password" label={t.confirmPassword} type="password" autoComplete="new-password" required />
          <Button type="submit" colorPalette="brand" size="lg" loading={state.hasTag('busy')} loadingText={t.busy}>
            {t.submit}
          </Button>
        </Stack>
      </ValidatedForm>
    );
  }
  return (
    <AuthCard heading={t.heading} lead={t.lead}>
      {body}
    </AuthCard>
  );
}

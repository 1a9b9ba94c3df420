import { Alert, Button, Link, Stack } from '@chakra-ui/react';
import { useMachine } from '@xstate/react';
import { useFormik } from 'formik';
import { useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { fromPromise } from 'xstate';
import { resetPasswordSchema } from '../../machines/auth/auth.schemas';
import { submissionMachine } from '../../machines/submission/submission.machine';
import { AuthCard } from '../components/AuthCard';
import { FormField, ValidatedForm } from '../components/FormField';
import { messages } from '../content/messages';
import { authApi } from '../lib/api';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.resetPassword;

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
  const [state, send] = useMachine(logic);
  const form = useFormik({
    initialValues: { new_password: '', confirm_password: '' },
    validationSchema: resetPasswordSchema,
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
      <Alert.Root status="error" role="alert">
        <Alert.Indicator />
        <Alert.Description>
          {t.missingToken} {requestNew}
        </Alert.Description>
      </Alert.Root>
    );
  } else if (state.hasTag('done')) {
    body = (
      <Stack gap="4">
        <Alert.Root status="success">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>{t.doneTitle}</Alert.Title>
            <Alert.Description>{t.doneText}</Alert.Description>
          </Alert.Content>
        </Alert.Root>
        <Button asChild colorPalette="brand" size="lg">
          <RouterLink to="/login">{t.toLogin}</RouterLink>
        </Button>
      </Stack>
    );
  } else {
    body = (
      <ValidatedForm form={form}>
        <Stack gap="4">
          {failure && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Content>
                <Alert.Title>{t.failedTitle}</Alert.Title>
                <Alert.Description>
                  {failure.status === 0 ? messages.auth.networkFailure : failure.message}{' '}
                  {failure.code === 'invalid_reset_token' && requestNew}
                </Alert.Description>
              </Alert.Content>
            </Alert.Root>
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

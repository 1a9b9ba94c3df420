import { Button, Link, Stack } from '@chakra-ui/react';
import { useMachine } from '@xstate/react';
import { useFormik } from 'formik';
import { useState } from 'react';
import { RouterLink } from '../app/RouterLink';
import { fromPromise } from 'xstate';
import { commonFailure } from '../../machines/failures';
import { submissionMachine } from '../../machines/submission/submission.machine';
import { AuthCard } from '../components/AuthCard';
import { Notice } from '../components/Notice';
import { FormField, ValidatedForm, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { authApi } from '../lib/api';
import { usePageTitle } from '../lib/usePageTitle';
import { actorOptions } from '../lib/inspector';

const t = messages.forgotPassword;
const validate = validateWithSchema(() => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas').then((schemas) => schemas.forgotPasswordSchema));

export default function ForgotPasswordPage() {
  usePageTitle(t.title);
  const [logic] = useState(() =>
    submissionMachine.provide({
      actors: { submit: fromPromise(({ input, signal }) => authApi.requestPasswordReset(input.email ?? '', { signal })) },
    }),
  );
  const [state, send] = useMachine(logic, actorOptions());
  const form = useFormik({
    initialValues: { email: '' },
    validate,
    validateOnBlur: false,
    onSubmit: (values) => send({ type: 'form.submit', values: { email: values.email.trim() } }),
  });
  const failure = state.context.error;

  return (
    <AuthCard
      heading={t.heading}
      lead={t.lead}
      footer={
        <Link asChild color="brand.fg">
          <RouterLink to="/login">{t.backToLogin}</RouterLink>
        </Link>
      }
    >
      {state.hasTag('done') ? (
        <Notice status="success" title={t.sentTitle}>{t.sentText}</Notice>
      ) : (
        <ValidatedForm form={form} preload={validate.preload}>
          <Stack gap="4">
            {failure && (
              <Notice status="error" title={t.failedTitle}>
                {commonFailure(failure) ?? failure.message}
              </Notice>
            )}
            <FormField form={form} name="email" label={t.email} type="email" autoComplete="email" required />
            <Button type="submit" colorPalette="brand" size="lg" loading={state.hasTag('busy')} loadingText={t.busy}>
              {t.submit}
            </Button>
          </Stack>
        </ValidatedForm>
      )}
    </AuthCard>
  );
}

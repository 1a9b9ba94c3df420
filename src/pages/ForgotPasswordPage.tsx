import { Button, Link, Stack } from '@chakra-ui/react';
import { useFormik } from 'formik';
import { RouterLink } from '../app/RouterLink';
import { forgotPasswordMachine } from '../../machines/forgotPassword/forgotPassword.machine';
import { AuthCard } from '../components/AuthCard';
import { Notice } from '../components/Notice';
import { FormField, ValidatedForm, validateWithSchema } from '../components/FormField';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { usePageTitle } from '../lib/usePageTitle';
import { createChartContext, useSelector } from '../lib/chart';

const t = messages.forgotPassword;

/** The form's chart; tests may hand in one with a fake request. */
export const ForgotPasswordChart = createChartContext(forgotPasswordMachine);
const validate = validateWithSchema(() => import(/* webpackChunkName: "auth-schemas" */ '../../machines/auth/auth.schemas').then((schemas) => schemas.forgotPasswordSchema), { register: messages.register });

export default function ForgotPasswordPage() {
  usePageTitle(t.title);
  const actor = ForgotPasswordChart.useActor();
  const failure = useSelector(actor, (s) => s.context.failure);
  const sent = useSelector(actor, (s) => s.hasTag('done'));
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const requestLink = (email: string) => actor.send({ type: 'form.submit', email });
  const form = useFormik({
    initialValues: { email: '' },
    validate,
    validateOnBlur: false,
    onSubmit: (values) => requestLink(values.email.trim()),
  });

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
      {sent ? (
        <Notice status="success" title={t.sentTitle}>{t.sentText}</Notice>
      ) : (
        <ValidatedForm form={form} preload={validate.preload}>
          <Stack gap="4">
            {failure && (
              <Notice status="error" title={t.failedTitle}>
                {say(failure, FAILURE_TEXTS)}
              </Notice>
            )}
            <FormField form={form} name="email" label={t.email} type="email" autoComplete="email" required />
            <Button type="submit" colorPalette="brand" size="lg" loading={busy} loadingText={t.busy}>
              {t.submit}
            </Button>
          </Stack>
        </ValidatedForm>
      )}
    </AuthCard>
  );
}

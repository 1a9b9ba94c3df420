import { Link } from '@chakra-ui/react';
import { useFormik } from 'formik';
import { RouterLink } from '../app/RouterLink';
import { forgotPasswordMachine } from '../../machines/forgotPassword/forgotPassword.machine';
import { AuthCard, AuthForm } from '../components/AuthCard';
import { Notice } from '../components/Notice';
import { FormField, validateWithSchema } from '../components/FormField';
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
        <AuthForm form={form} preload={validate.preload} busy={busy} submitText={t.submit} busyText={t.busy}>
          {failure && (
            <Notice status="error" title={t.failedTitle}>
              {say(failure, FAILURE_TEXTS)}
            </Notice>
          )}
          <FormField form={form} name="email" label={t.email} type="email" autoComplete="email" required />
        </AuthForm>
      )}
    </AuthCard>
  );
}

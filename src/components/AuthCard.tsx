import { Button, Card, Container, Heading, Link, Stack, Text } from '@chakra-ui/react';
import type { FormikProps } from 'formik';
import type { ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import { RouterLink } from '../app/RouterLink';
import { ValidatedForm } from './FormField';

/** The centred card that holds the sign-in, sign-up and password forms. */
export function AuthCard({ heading, lead, children, footer }: { heading: string; lead: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <Container maxW="md" py={{ base: '10', md: '16' }}>
      <Card.Root variant="outline" shadow="sm">
        <Card.Body gap="6" p={{ base: '6', md: '8' }}>
          <Stack gap="2">
            <Heading as="h1" size="2xl" letterSpacing="tight">
              {heading}
            </Heading>
            <Text color="fg.muted">{lead}</Text>
          </Stack>
          {children}
        </Card.Body>
      </Card.Root>
      {footer && (
        <Stack mt="6" gap="2" align="center" fontSize="sm" color="fg.muted">
          {footer}
        </Stack>
      )}
    </Container>
  );
}

interface AuthFormProps<V> {
  form: FormikProps<V>;
  /** Loads the form's rules once it is on screen (see ValidatedForm). */
  preload?: () => unknown;
  /** The request is under way: the button shows `busyText` and waits. */
  busy: boolean;
  submitText: string;
  busyText: string;
  children: ReactNode;
}

/** The form of an auth card: its fields (and whatever goes between them), then the wide submit button. */
export function AuthForm<V>({ form, preload, busy, submitText, busyText, children }: AuthFormProps<V>) {
  return (
    <ValidatedForm form={form} preload={preload}>
      <Stack gap="4">
        {children}
        <Button type="submit" colorPalette="brand" size="lg" loading={busy} loadingText={busyText}>
          {submitText}
        </Button>
      </Stack>
    </ValidatedForm>
  );
}

/** The line under the sign-in and sign-up cards: "question? link" and the way back home. */
/** The link to the other form (sign in ↔ register): it carries where the visitor came from, and the address to fill in, along. */
export function AuthSwitch({ question, linkText, to, homeText }: { question: string; linkText: string; to: string; homeText: string }) {
  const { state } = useLocation();
  return (
    <>
      <Text>
        {question}{' '}
        <Link asChild color="brand.fg" fontWeight="medium">
          <RouterLink to={to} state={state}>
            {linkText}
          </RouterLink>
        </Link>
      </Text>
      <Link asChild color="fg.muted">
        <RouterLink to="/">{homeText}</RouterLink>
      </Link>
    </>
  );
}

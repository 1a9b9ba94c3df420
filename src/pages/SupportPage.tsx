import {
  Alert,
  Box,
  Button,
  Card,
  Container,
  Field,
  Grid,
  Heading,
  HStack,
  Input,
  Link,
  Stack,
  Text,
  Textarea,
} from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router-dom';
import { ClockIcon, MailIcon } from '../components/icons';
import { messages } from '../content/messages';
import { usePageTitle } from '../lib/usePageTitle';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';

const t = messages.support;

function SidePanel() {
  const { supportEmail } = useRuntimeConfig();
  return (
    <Stack gap="6" as="aside" aria-label={t.contactTitle}>
      <Card.Root variant="outline">
        <Card.Body gap="4">
          <Heading as="h2" size="md">
            {t.contactTitle}
          </Heading>
          <HStack align="flex-start" gap="3">
            <MailIcon boxSize="5" color="brand.fg" mt="0.5" />
            <Text fontSize="sm">
              {t.contactEmail}{' '}
              <Link href={`mailto:${supportEmail}`} color="brand.fg" fontWeight="medium">
                {supportEmail}
              </Link>
            </Text>
          </HStack>
          <HStack align="flex-start" gap="3">
            <ClockIcon boxSize="5" color="brand.fg" mt="0.5" />
            <Box>
              <Text fontSize="sm" fontWeight="medium">
                {t.responseTitle}
              </Text>
              <Text fontSize="sm" color="fg.muted">
                {t.responseText}
              </Text>
            </Box>
          </HStack>
        </Card.Body>
      </Card.Root>
      <Card.Root variant="outline">
        <Card.Body gap="4">
          <Heading as="h2" size="md">
            {t.faqTitle}
          </Heading>
          {t.faq.map((item) => (
            <Box key={item.q}>
              <Heading as="h3" size="sm" mb="1">
                {item.q}
              </Heading>
              <Text fontSize="sm" color="fg.muted">
                {item.a}
                {'link' in item && (
                  <>
                    {' '}
                    <Link asChild color="brand.fg">
                      <RouterLink to="/privacy">{item.link}</RouterLink>
                    </Link>
                    .
                  </>
                )}
              </Text>
            </Box>
          ))}
        </Card.Body>
      </Card.Root>
    </Stack>
  );
}

export default function SupportPage() {
  usePageTitle(t.title);
  return (
    <Container maxW="6xl" py={{ base: '10', md: '16' }}>
      <Stack gap="3" mb="10">
        <Heading as="h1" size={{ base: '3xl', md: '4xl' }} letterSpacing="tight">
          {t.heading}
        </Heading>
        <Text color="fg.muted" fontSize="lg">
          {t.lead}
        </Text>
      </Stack>
      <Grid templateColumns={{ base: '1fr', lg: '2fr 1fr' }} gap="8" alignItems="start">
        <Card.Root variant="outline">
          <Card.Body gap="5">
            <Heading as="h2" size="lg">
              {t.formTitle}
            </Heading>
            <Alert.Root status="info">
              <Alert.Indicator />
              <Alert.Description>
                {t.signInNotice}{' '}
                <Link asChild fontWeight="semibold">
                  <RouterLink to="/login">{t.signInLink}</RouterLink>
                </Link>
              </Alert.Description>
            </Alert.Root>
            <Stack asChild gap="4">
              <form noValidate onSubmit={(event) => event.preventDefault()}>
              <Field.Root required>
                <Field.Label>{t.titleLabel}</Field.Label>
                <Input name="title" />
              </Field.Root>
              <Field.Root required>
                <Field.Label>{t.descriptionLabel}</Field.Label>
                <Textarea name="description" rows={6} />
              </Field.Root>
              <Grid templateColumns={{ base: '1fr', md: '1fr 1fr' }} gap="4">
                <Field.Root required>
                  <Field.Label>{t.emailLabel}</Field.Label>
                  <Input name="email" type="email" autoComplete="email" />
                </Field.Root>
                <Field.Root required>
                  <Field.Label>{t.telephoneLabel}</Field.Label>
                  <Input name="telephone" type="tel" autoComplete="tel" />
                </Field.Root>
              </Grid>
              <Button type="submit" colorPalette="brand" alignSelf="flex-start" disabled>
                {t.submit}
              </Button>
              </form>
            </Stack>
          </Card.Body>
        </Card.Root>
        <SidePanel />
      </Grid>
    </Container>
  );
}

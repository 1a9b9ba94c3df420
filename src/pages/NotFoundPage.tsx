import { Button, Container, Heading, Stack, Text } from '@chakra-ui/react';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { RouterLink } from '../app/RouterLink';
import * as messages from '../content/messages';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.notFound;

export default function NotFoundPage() {
  const { pathname } = useLocation();
  usePageTitle(t.title);
  useEffect(() => {
    console.error('404 Error: User attempted to access non-existent route:', pathname);
  }, [pathname]);
  return (
    <Container maxW="xl" py={{ base: '20', md: '28' }} textAlign="center">
      <Stack gap="4" align="center">
        <Text fontSize="7xl" fontWeight="bold" color="brand.fg" lineHeight="1" aria-hidden="true">
          {t.code}
        </Text>
        <Heading as="h1" size="2xl">
          <Text as="span" srOnly>
            {t.code}{' '}
          </Text>
          {t.heading}
        </Heading>
        <Text color="fg.muted">{t.lead}</Text>
        <Button asChild colorPalette="brand" mt="2">
          <RouterLink to="/">{t.home}</RouterLink>
        </Button>
      </Stack>
    </Container>
  );
}

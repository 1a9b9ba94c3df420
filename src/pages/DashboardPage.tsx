import { Container, Heading, Stack, Text } from '@chakra-ui/react';
import { useAuthSelector } from '../app/auth';
import { messages } from '../content/messages';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.dashboard;

export default function DashboardPage() {
  usePageTitle(t.title);
  const fullName = useAuthSelector((s) => s.context.user?.full_name ?? '');
  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <Stack gap="2">
        <Heading as="h1" size="3xl" letterSpacing="tight">
          {t.title}
        </Heading>
        <Text color="fg.muted" fontSize="lg">
          {t.greeting(fullName)}
        </Text>
      </Stack>
    </Container>
  );
}

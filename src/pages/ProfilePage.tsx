import { Card, Container, DataList, Heading, Stack, Text } from '@chakra-ui/react';
import { useAuthSelector } from '../app/auth';
import { messages } from '../content/messages';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.profile;

export default function ProfilePage() {
  usePageTitle(t.title);
  const user = useAuthSelector((s) => s.context.user);
  if (!user) return null;
  const fields: Array<[string, string]> = [
    [t.fullName, user.full_name],
    [t.username, user.username],
    [t.email, user.email],
    [t.memberSince, new Date(user.created_at).toLocaleDateString()],
  ];
  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <Heading as="h1" size="3xl" letterSpacing="tight" mb="8">
        {t.title}
      </Heading>
      <Card.Root variant="outline" maxW="2xl">
        <Card.Body gap="5">
          <Stack gap="1">
            <Heading as="h2" size="lg">
              {t.detailsTitle}
            </Heading>
            <Text color="fg.muted" fontSize="sm">
              {t.detailsNote}
            </Text>
          </Stack>
          <DataList.Root orientation="horizontal">
            {fields.map(([label, value]) => (
              <DataList.Item key={label}>
                <DataList.ItemLabel>{label}</DataList.ItemLabel>
                <DataList.ItemValue>{value}</DataList.ItemValue>
              </DataList.Item>
            ))}
          </DataList.Root>
        </Card.Body>
      </Card.Root>
    </Container>
  );
}

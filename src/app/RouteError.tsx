import { Button, Container, Heading, Stack, Text } from '@chakra-ui/react';
import { useEffect } from 'react';
import { useRouteError } from 'react-router-dom';
import { messages } from '../content/messages';

/** Shown when a page fails to load or render (e.g. a chunk gone after a deploy): offer a reload. */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => console.error('Route error:', error), [error]);
  return (
    <Container maxW="xl" py="24" textAlign="center">
      <Stack gap="4" align="center">
        <Heading as="h1" size="2xl">
          {messages.routeError.heading}
        </Heading>
        <Text color="fg.muted">{messages.routeError.lead}</Text>
        <Button colorPalette="brand" onClick={() => window.location.reload()}>
          {messages.routeError.reload}
        </Button>
      </Stack>
    </Container>
  );
}

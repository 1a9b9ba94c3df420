import { Button, Container, Heading, Stack, Text } from '@chakra-ui/react';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import * as messages from '../content/messages';

/** Shown when a page fails to load or render (e.g. a chunk gone after a deploy): offer a reload. */
export function RouteError() {
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

/** Puts `RouteError` in place of its children when they throw (React has error boundaries as classes only). */
export class RouteErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('Route error:', error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? <RouteError /> : this.props.children;
  }
}

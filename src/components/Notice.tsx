import { Alert } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** A titled message in a form: success after sending, or why sending failed (announced at once). */
export function Notice({ status, title, children }: { status: 'success' | 'error'; title?: string; children: ReactNode }) {
  return (
    <Alert.Root status={status} role={status === 'error' ? 'alert' : 'status'}>
      <Alert.Indicator />
      <Alert.Content>
        {title && <Alert.Title>{title}</Alert.Title>}
        <Alert.Description>{children}</Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );
}

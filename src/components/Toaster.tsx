import { Toaster as ChakraToaster, Portal, Stack, Toast, createToaster } from '@chakra-ui/react';
import type { NotifyParams } from '../../machines/auth/auth.machine';

/** The app's one toaster; machines' `notify` actions create toasts through it. */
export const toaster = createToaster({ placement: 'top-end', pauseOnPageIdle: true, max: 4 });

/** What every chart's `notify` action does in the app. */
export function showToast({ type, title, description }: NotifyParams): void {
  toaster.create({ type, title, description, closable: true });
}

export function Toaster() {
  return (
    <Portal>
      <ChakraToaster toaster={toaster} insetInline={{ mdDown: '4' }}>
        {(toast) => (
          <Toast.Root width={{ md: 'sm' }}>
            <Toast.Indicator />
            <Stack gap="1" flex="1" maxWidth="100%">
              {toast.title && <Toast.Title>{toast.title}</Toast.Title>}
              {toast.description && <Toast.Description>{toast.description}</Toast.Description>}
            </Stack>
            <Toast.CloseTrigger />
          </Toast.Root>
        )}
      </ChakraToaster>
    </Portal>
  );
}

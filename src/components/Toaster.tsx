import { Toaster as ChakraToaster, Portal, Stack, Toast, createToaster } from '@chakra-ui/react';
import type { NotifyParams } from '../../machines/auth/auth.machine';
import { useClientSnapshot } from '../lib/useClientSnapshot';

/** The app's one toaster; machines' `notify` actions create toasts through it. */
export const toaster = createToaster({ placement: 'top-end', pauseOnPageIdle: true, max: 4 });

/** What every chart's `notify` action does in the app. */
export function showToast({ type, title, description }: NotifyParams): void {
  toaster.create({ type, title, description, closable: true });
}

export function Toaster() {
  // The toast region is placed with inline styles, which the CSP refuses in HTML (React sets them
  // through the CSSOM, which it allows): the prerender leaves it out, the browser adds it.
  const inBrowser = useClientSnapshot(() => true, false);
  if (!inBrowser) return null;
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

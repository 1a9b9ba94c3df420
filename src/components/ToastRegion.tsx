import { Toaster as ChakraToaster, Portal, Stack, Toast, createToaster } from '@chakra-ui/react';

/**
 * The app's one toaster (its own chunk: see Toaster.tsx). At the bottom, clear of the top bar and
 * its controls (tests/e2e/toasts); a phone gets the full width there (insetInline below). The
 * toasts stack upwards with a gap, each fully shown (`overlap: false`), and hover pauses them.
 */
export const toaster = createToaster({ placement: 'bottom-end', overlap: false, gap: 12, pauseOnPageIdle: true, max: 4 });

export function ToastRegion() {
  return (
    <Portal>
      <ChakraToaster toaster={toaster} insetInline={{ mdDown: '4' }}>
        {(toast) => (
          // A border as well as the shadow: the neutral toast's panel is close to the page's own
          // colour in dark mode, and the shadow barely shows there.
          <Toast.Root width={{ md: 'sm' }} borderWidth="1px" borderColor={{ base: 'border', _light: 'transparent' }}>
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

import { Toaster as ChakraToaster, Portal, Stack, Toast, createToaster } from '@chakra-ui/react';
import type { Message } from '../../machines/shared/messages';
import { chartTexts } from '../content/chartTexts';
import { say } from '../content/say';

/** A chart's message in the catalogue's words: a toast may come from any chart. */
export const word = (message: Message): string => say(message, chartTexts);

/** Chakra's `md` breakpoint: narrower is a phone, where the top bar is one compact row. */
const PHONE = '(max-width: 767.98px)';

/**
 * The app's one toaster (its own chunk: see Toaster.tsx), never over the top bar and its controls
 * (tests/e2e/topBarAndToasts). On a wider screen at the bottom right; on a phone at the top, just
 * under the top bar's one row (4rem) and the full width (insetInline below): at the bottom it
 * covered the field in focus, where a phone scrolls it to sit above the keyboard (the support
 * form's email, seen in `npm run screenshots`). The toasts stack with a gap, each fully shown
 * (`overlap: false`), and hover pauses them. The placement is chosen once, when the first toast
 * or the region loads.
 */
const phone = typeof window !== 'undefined' && window.matchMedia(PHONE).matches;
export const toaster = createToaster({
  placement: phone ? 'top' : 'bottom-end',
  offsets: phone ? { top: '4.75rem', right: '1rem', bottom: '1rem', left: '1rem' } : '1rem',
  overlap: false,
  gap: 12,
  pauseOnPageIdle: true,
  max: 4,
});

export function ToastRegion() {
  return (
    <Portal>
      {/* On a phone the toasts sit under the top bar, and under its open menu too (the bar's z-index is `sticky`). */}
      <ChakraToaster toaster={toaster} insetInline={{ mdDown: '4' }} zIndex={{ mdDown: 'dropdown !important' }}>
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

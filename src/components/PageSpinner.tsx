import { Center, Spinner } from '@chakra-ui/react';
import { Global } from '@emotion/react';
import * as messages from '../content/messages';

/**
 * While a page is a spinner, the footer waits: under it, the footer would sit mid-screen and then
 * be pushed off it by the page, the largest layout shift of a signed-in page's load (issue 40).
 * The rule lives only while a spinner is on the page, so the prerendered pages, which have none,
 * do not carry it (each must fit in a new connection's first 14.6 kB, tests/e2e/delivery.test.ts).
 */
const FOOTER_WAITS = { footer: { display: 'none' } };

/** Keeps the footer back while it is rendered. */
export function FooterWaits() {
  return <Global styles={FOOTER_WAITS} />;
}

/**
 * A centred spinner for a page whose content is still loading. `onScreen`: centred on the screen
 * rather than in the page's room, for a page that may still be a spinner when a banner comes above
 * it (the invitation's lookup can answer after the session check, whose answer brings the banner):
 * in the page's room, the banner pushed it down (a layout shift of 0.14 on a phone).
 */
export function PageSpinner({ onScreen = false }: { onScreen?: boolean }) {
  return (
    <Center role="status" aria-live="polite" {...(onScreen ? { position: 'fixed', inset: '0', pointerEvents: 'none' } : { minH: '50vh' })}>
      <FooterWaits />
      <Spinner size="xl" color="brand.solid" borderWidth="3px" aria-label={messages.loading} />
    </Center>
  );
}

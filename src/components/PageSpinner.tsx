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

/** A centred spinner for a page whose content is still loading. */
export function PageSpinner() {
  return (
    <Center minH="50vh" role="status" aria-live="polite">
      <FooterWaits />
      <Spinner size="xl" color="brand.solid" borderWidth="3px" aria-label={messages.loading} />
    </Center>
  );
}

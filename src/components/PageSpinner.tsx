import { Center, Spinner } from '@chakra-ui/react';
import * as messages from '../content/messages';

/** Marks a page that is still a spinner: the layout keeps the footer back until the page is drawn. */
export const PAGE_LOADING_ATTRIBUTE = 'data-page-loading';

/** A centred spinner for a page whose content is still loading. */
export function PageSpinner() {
  return (
    <Center minH="50vh" role="status" aria-live="polite" {...{ [PAGE_LOADING_ATTRIBUTE]: '' }}>
      <Spinner size="xl" color="brand.solid" borderWidth="3px" aria-label={messages.loading} />
    </Center>
  );
}

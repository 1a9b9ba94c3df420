import { Center, Spinner } from '@chakra-ui/react';
import * as messages from '../content/messages';

/** A centred spinner for a page whose content is still loading. */
export function PageSpinner() {
  return (
    <Center minH="50vh" role="status" aria-live="polite">
      <Spinner size="xl" color="brand.solid" borderWidth="3px" aria-label={messages.loading} />
    </Center>
  );
}

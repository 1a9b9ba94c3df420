import { HStack } from '@chakra-ui/react';
import { messages } from '../content/messages';
import { StarIcon } from './icons';

/** Stars drawn for the eye, announced once as "Rated N out of 5 stars" for screen readers. */
export function StarRating({ stars }: { stars: number }) {
  return (
    <HStack gap="0.5" role="img" aria-label={messages.landing.rating(stars)} color="orange.400">
      {Array.from({ length: 5 }, (_, i) => (
        <StarIcon key={i} boxSize="4" color={i < stars ? 'orange.400' : 'gray.300'} />
      ))}
    </HStack>
  );
}

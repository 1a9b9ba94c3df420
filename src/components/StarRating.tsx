import { HStack, Icon, type IconProps } from '@chakra-ui/react';
import * as messages from '../content/messages';

function StarIcon(props: IconProps) {
  return (
    <Icon {...props} asChild>
      <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5L2.5 9.4l6.6-.9z"
        />
      </svg>
    </Icon>
  );
}


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

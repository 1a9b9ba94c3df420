import { Link, VisuallyHidden, type LinkProps } from '@chakra-ui/react';
import { messages } from '../content/messages';

/** A link that opens another site in a new tab, and says so to screen readers. */
export function ExternalLink({ children, ...props }: LinkProps & { href: string }) {
  return (
    <Link target="_blank" rel="noopener noreferrer" {...props}>
      {children}
      <VisuallyHidden> {messages.footer.opensInNewTab}</VisuallyHidden>
    </Link>
  );
}

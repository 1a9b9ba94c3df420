import { Link, VisuallyHidden, type LinkProps } from '@chakra-ui/react';
import * as messages from '../content/messages';

/** The attributes of a link to another site: a new tab that cannot script this one. */
export const NEW_TAB = { target: '_blank', rel: 'noopener noreferrer' } as const;

/** Tells screen-reader users that the link opens a new tab. */
export function NewTabNote() {
  return <VisuallyHidden> {messages.footer.opensInNewTab}</VisuallyHidden>;
}

/** A link that opens another site in a new tab, and says so to screen readers. */
export function ExternalLink({ children, ...props }: LinkProps & { href: string }) {
  return (
    <Link {...NEW_TAB} {...props}>
      {children}
      <NewTabNote />
    </Link>
  );
}

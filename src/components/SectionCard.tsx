import { Card, Heading, Stack, Text, type CardRootProps, type HeadingProps, type StackProps } from '@chakra-ui/react';
import { useId, type ReactNode } from 'react';

interface SectionCardProps extends Omit<CardRootProps, 'title' | 'gap'> {
  /** The section's name: its h2, which labels the section. */
  title: string;
  /** A muted line under the title. */
  lead?: string;
  /** The heading's id, where something else points at it; one of its own otherwise. */
  headingId?: string;
  headingSize?: HeadingProps['size'];
  headingColor?: HeadingProps['color'];
  /** The space between the heading and the parts of the body. */
  gap?: StackProps['gap'];
  /** The section's content is being reloaded. */
  busy?: boolean;
  children: ReactNode;
}

/** A card that is a section of the page, named by its heading (a region for assistive technology). */
export function SectionCard({ title, lead, headingId, headingSize = 'lg', headingColor, gap = '4', busy, children, ...card }: SectionCardProps) {
  const ownId = useId();
  const id = headingId ?? ownId;
  const heading = (
    <Heading as="h2" id={id} size={headingSize} color={headingColor}>
      {title}
    </Heading>
  );
  return (
    <Card.Root as="section" aria-labelledby={id} aria-busy={busy} variant="outline" {...card}>
      <Card.Body gap={gap}>
        {lead === undefined ? (
          heading
        ) : (
          <Stack gap="1">
            {heading}
            <Text color="fg.muted">{lead}</Text>
          </Stack>
        )}
        {children}
      </Card.Body>
    </Card.Root>
  );
}

import { Heading, Stack, Text, type StackProps } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** A page's title (its one h1) and, when it has one, the line that follows it. */
export function PageHeader({ title, lead, ...stack }: { title: string; lead?: ReactNode } & StackProps) {
  return (
    <Stack gap="1" {...stack}>
      <Heading as="h1" size="3xl" letterSpacing="tight">
        {title}
      </Heading>
      {lead !== undefined && (
        <Text color="fg.muted" fontSize="lg">
          {lead}
        </Text>
      )}
    </Stack>
  );
}

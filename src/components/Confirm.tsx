import { Button, HStack, Stack, Text } from '@chakra-ui/react';

/** A question asked in place before a change that cannot be undone, with its two answers. */
export function Confirm({ question, yes, no, onYes, onCancel }: { question: string; yes: string; no: string; onYes(): void; onCancel(): void }) {
  return (
    <Stack gap="2" role="group" aria-label={question}>
      <Text fontSize="sm" fontWeight="medium">
        {question}
      </Text>
      <HStack gap="2" wrap="wrap">
        <Button size="sm" colorPalette="red" onClick={onYes}>
          {yes}
        </Button>
        <Button size="sm" variant="outline" onClick={onCancel}>
          {no}
        </Button>
      </HStack>
    </Stack>
  );
}

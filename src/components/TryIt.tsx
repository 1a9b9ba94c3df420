import { Badge, Box, Code, Stack, Table, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { SAMPLE_TABLE } from '../../machines/tryQuery/tryQuery.machine';
import * as messages from '../content/messages';
import type { QueryAnswer } from '../../machines/shared/api';
import { SectionCard } from './SectionCard';

const t = messages.guide;

/** The sample table a try-it box runs on (the try-it chart's), numbers on the right. */
export function SampleTable() {
  const [header, ...rows] = SAMPLE_TABLE;
  return (
    <Box overflowX="auto">
      <Table.Root size="sm" variant="outline" aria-label={t.sampleCaption}>
        <Table.Header>
          <Table.Row>
            {header!.map((cell, column) => (
              // Headers of number columns line up with their numbers, on the right.
              <Table.ColumnHeader key={String(cell)} textAlign={typeof rows[0]![column] === 'number' ? 'end' : 'start'}>
                {cell}
              </Table.ColumnHeader>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((row, index) => (
            <Table.Row key={index}>
              {row.map((cell, column) => (
                <Table.Cell key={column} textAlign={typeof cell === 'number' ? 'end' : 'start'}>
                  {typeof cell === 'number' ? cell.toLocaleString() : cell}
                </Table.Cell>
              ))}
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Box>
  );
}

/** The formula an answer shows, its value on the sample table, and whether the server's engine checked it. */
function CheckedFormula({ formula, verified }: { formula: NonNullable<QueryAnswer['formula']>; verified: boolean }) {
  const value = Array.isArray(formula.value) ? formula.value.map((row) => row.join(', ')).join('; ') : typeof formula.value === 'number' ? formula.value.toLocaleString() : String(formula.value);
  return (
    <Stack gap="1" borderLeftWidth="3px" borderColor={verified ? 'green.solid' : 'orange.solid'} ps="3">
      <Text fontWeight="semibold" fontSize="sm">
        {t.formulaTitle}
      </Text>
      <Code alignSelf="flex-start" fontSize="sm" whiteSpace="pre-wrap" wordBreak="break-all">
        {formula.text}
      </Code>
      {verified && <Text fontSize="sm">{t.formulaValue(value)}</Text>}
      <Badge alignSelf="flex-start" colorPalette={verified ? 'green' : 'orange'} whiteSpace="normal">
        {verified ? t.formulaChecked : t.formulaUnchecked(formula.error ?? '')}
      </Badge>
    </Stack>
  );
}

/**
 * The answer of a try-it box: as the model writes it (`partial`, announced once whole, not piece
 * by piece), then the whole answer with its checked formula, the usage after it and `children`.
 */
export function TryItAnswer({ title, partial, answer, children }: { title: string; partial: string | null; answer: QueryAnswer | null; children?: ReactNode }) {
  if (partial !== null) {
    return (
      <Stack role="status" aria-busy="true" gap="3" borderWidth="1px" borderRadius="md" p="4">
        <Text fontWeight="semibold">{title}</Text>
        <Text whiteSpace="pre-wrap" fontSize="sm">
          {partial}
        </Text>
      </Stack>
    );
  }
  if (!answer) return null;
  return (
    <Stack role="status" gap="3" borderWidth="1px" borderRadius="md" p="4">
      <Text fontWeight="semibold">{title}</Text>
      <Text whiteSpace="pre-wrap" fontSize="sm">
        {answer.answer}
      </Text>
      {answer.formula && <CheckedFormula formula={answer.formula} verified={answer.verified} />}
      <Text fontSize="sm" color="fg.muted">
        {t.usageNow(answer.usage.monthly_queries ?? 0, answer.usage.daily_tokens ?? 0)}
      </Text>
      {children}
    </Stack>
  );
}

interface TryItCardProps {
  title: string;
  lead: string;
  /** The card's own id, for a link that scrolls to it. */
  id?: string;
  /** Why the last query failed, worded. */
  problem: string | null;
  /** The answer (a TryItAnswer), under the problem. */
  answer: ReactNode;
  /** What to ask and the button that asks, under the sample table. */
  children: ReactNode;
}

/** A try-it box: the sample table, the way to ask about it, why asking failed, and the answer. */
export function TryItCard({ title, lead, id, problem, answer, children }: TryItCardProps) {
  return (
    <SectionCard title={title} lead={lead} id={id} gap="5">
      <SampleTable />
      {children}
      {problem && (
        <Text color="fg.error" role="alert">
          {problem}
        </Text>
      )}
      {answer}
    </SectionCard>
  );
}

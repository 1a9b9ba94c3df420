import { Badge, Box, Button, Card, Code, Container, Heading, HStack, List, Stack, Table, Text } from '@chakra-ui/react';
import { useId } from 'react';
import { SAMPLE_TABLE, tryQueryMachine } from '../../machines/tryQuery/tryQuery.machine';
import { useAuthRef } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { InstallAddOnButton } from '../components/InstallAddOnButton';
import { PageHeader } from '../components/PageHeader';
import * as messages from '../content/messages';
import { say } from '../content/say';
import type { QueryAnswer } from '../../machines/shared/api';
import { createChartContext, useSelector } from '../lib/chart';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.guide;
const TEXTS = { guide: t };

/** The try-it chart the guide runs; tests may hand in one with fake effects. */
export const TryQueryChart = createChartContext(tryQueryMachine);

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

function TryIt() {
  const auth = useAuthRef();
  const actor = TryQueryChart.useActor({ input: { auth, prompt: t.prompt } });
  const { answer, partial, problem, busy } = useSelector(actor, (s) => ({
    answer: s.context.answer,
    partial: s.context.partial,
    problem: s.context.problem,
    busy: s.hasTag('busy'),
  }));
  const id = useId();
  const [header, ...rows] = SAMPLE_TABLE;
  return (
    <Card.Root as="section" aria-labelledby={id} variant="outline">
      <Card.Body gap="5">
        <Stack gap="1">
          <Heading as="h2" id={id} size="lg">
            {t.tryTitle}
          </Heading>
          <Text color="fg.muted">{t.tryLead}</Text>
        </Stack>
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
        <Text fontStyle="italic">“{t.prompt}”</Text>
        <Text fontSize="sm" color="fg.muted">
          {t.counts}
        </Text>
        <Button colorPalette="brand" alignSelf="flex-start" onClick={() => actor.send({ type: 'query.ask' })} loading={busy} loadingText={t.asking}>
          {t.ask}
        </Button>
        {problem && (
          <Text color="fg.error" role="alert">
            {say(problem, TEXTS)}
          </Text>
        )}
        {partial !== null && (
          // The answer as the model writes it; announced once whole, not piece by piece.
          <Stack role="status" aria-busy="true" gap="3" borderWidth="1px" borderRadius="md" p="4">
            <Text fontWeight="semibold">{t.answerTitle}</Text>
            <Text whiteSpace="pre-wrap" fontSize="sm">
              {partial}
            </Text>
          </Stack>
        )}
        {answer && partial === null && (
          <Stack role="status" gap="3" borderWidth="1px" borderRadius="md" p="4">
            <Text fontWeight="semibold">{t.answerTitle}</Text>
            <Text whiteSpace="pre-wrap" fontSize="sm">
              {answer.answer}
            </Text>
            {answer.formula && <CheckedFormula formula={answer.formula} verified={answer.verified} />}
            <Text fontSize="sm" color="fg.muted">
              {t.usageNow(answer.usage.monthly_queries ?? 0, answer.usage.daily_tokens ?? 0)}
            </Text>
            <Button asChild size="sm" variant="outline" alignSelf="flex-start">
              <RouterLink to="/dashboard">{t.seeDashboard}</RouterLink>
            </Button>
          </Stack>
        )}
      </Card.Body>
    </Card.Root>
  );
}

/** The Quick Start Guide: install, connect with the code, and a first query tried right here. */
export default function GuidePage() {
  usePageTitle(t.title);
  return (
    <Container maxW="4xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.title} lead={t.lead} mb="8" />
      <Stack gap="6">
        <Card.Root variant="outline">
          <Card.Body>
            <List.Root as="ol" gap="5" ps="5">
              {t.steps.map((step) => (
                <List.Item key={step.title}>
                  <Stack gap="1">
                    <Text fontWeight="semibold">{step.title}</Text>
                    <Text color="fg.muted">{step.text}</Text>
                  </Stack>
                </List.Item>
              ))}
            </List.Root>
            <HStack gap="3" mt="5" wrap="wrap">
              <InstallAddOnButton />
              <Button asChild variant="outline">
                <RouterLink to="/link">{t.connectPage}</RouterLink>
              </Button>
            </HStack>
          </Card.Body>
        </Card.Root>
        <TryIt />
      </Stack>
    </Container>
  );
}

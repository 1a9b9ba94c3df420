import { Button, Card, Container, Heading, HStack, List, Stack, Text } from '@chakra-ui/react';
import { tryQueryMachine } from '../../machines/tryQuery/tryQuery.machine';
import { useAuthRef } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { InstallAddOnButton } from '../components/InstallAddOnButton';
import { PageHeader } from '../components/PageHeader';
import { TryItAnswer, TryItCard } from '../components/TryIt';
import * as messages from '../content/messages';
import { say } from '../content/say';
import { createChartContext, useSelector } from '../lib/chart';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.guide;
const TEXTS = { guide: t };

/** The try-it chart the guide runs; tests may hand in one with fake effects. */
export const TryQueryChart = createChartContext(tryQueryMachine);

function TryIt() {
  const auth = useAuthRef();
  const actor = TryQueryChart.useActor({ input: { auth, prompt: t.prompt } });
  const { answer, partial, problem, busy } = useSelector(actor, (s) => ({
    answer: s.context.answer,
    partial: s.context.partial,
    problem: s.context.problem,
    busy: s.hasTag('busy'),
  }));
  return (
    <TryItCard
      title={t.tryTitle}
      lead={t.tryLead}
      problem={problem && say(problem, TEXTS)}
      answer={
        <TryItAnswer title={t.answerTitle} partial={partial} answer={answer}>
          <Button asChild size="sm" variant="outline" alignSelf="flex-start">
            <RouterLink to="/dashboard">{t.seeDashboard}</RouterLink>
          </Button>
        </TryItAnswer>
      }
    >
      <Text fontStyle="italic">“{t.prompt}”</Text>
      <Text fontSize="sm" color="fg.muted">
        {t.counts}
      </Text>
      <Button colorPalette="brand" alignSelf="flex-start" onClick={() => actor.send({ type: 'query.ask' })} loading={busy} loadingText={t.asking}>
        {t.ask}
      </Button>
    </TryItCard>
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
        <Card.Root as="section" variant="outline">
          <Card.Body gap="3">
            <Heading as="h2" size="lg">
              {t.functionsTitle}
            </Heading>
            <Text color="fg.muted">{t.functionsText}</Text>
            <Button asChild variant="outline" alignSelf="flex-start">
              <RouterLink to="/functions">{t.functionsLink}</RouterLink>
            </Button>
          </Card.Body>
        </Card.Root>
      </Stack>
    </Container>
  );
}

import { Alert, Box, Button, Card, Container, Field, Fieldset, Flex, Heading, HStack, Input, List, SimpleGrid, Skeleton, Stack, Stat, Text, type TextProps } from '@chakra-ui/react';
import { lazy, Suspense, useId, useState, type FormEvent, type ReactNode } from 'react';
import { planWith } from '../../contract/plans';
import { usageMachine, usageStatus, type UsageSnapshot } from '../../machines/usage/usage.machine';
import { RANGE_PRESETS, utcToday, type RangeChoice } from '../../machines/usage/usage.range';
import { useAuthRef } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { AccountExport } from '../components/AccountExport';
import { PageSpinner } from '../components/PageSpinner';
import type { ChartWords } from '../components/DailyUsageChart';
import { PageHeader } from '../components/PageHeader';
import { SectionCard } from '../components/SectionCard';
import { toastEffect } from '../components/Toaster';
import { UsageTotals } from '../components/UsageTotals';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import type { UsageAnalytics } from '../../machines/shared/api';
import { createChartContext, useDeferredSelector, useSelector } from '../lib/chart';
import { dateFormat, formatNumber } from '../lib/formats';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.usage;
/** The sections the usage chart's messages are in: its range errors and its failures. */
const TEXTS = { usage: t, ...FAILURE_TEXTS };

// Its own chunk, shared with the dashboard: the page's first paint does not wait for the chart.
const DailyUsageChart = lazy(() => import('../components/DailyUsageChart'));

/** The chart the page runs; tests hand in one with fake effects. */
export const UsageChart = createChartContext(usageMachine);

/** A UTC day in the reader's locale, with its year: "Nov 1, 2026". */
const longDay = (date: string) => dateFormat({ year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));

const CHART_WORDS: ChartWords = {
  legend: t.chartLegend,
  xAxis: t.xAxis,
  yAxis: t.yAxis,
  help: t.chartHelp,
  detail: (day, date) => t.dayDetail(date, formatNumber(day.queries), formatNumber(day.tokens), day.queries > 0 ? formatNumber(day.avg_processing_ms ?? 0) : null),
};

function Section({ title, children, busy }: { title: string; children: ReactNode; busy?: boolean }) {
  return (
    <SectionCard title={title} headingSize="md" busy={busy} minW="0">
      {children}
    </SectionCard>
  );
}

/** The presets as toggle buttons, and Custom, which opens two date fields checked by the chart. */
function RangePicker({ actor, today }: { actor: ReturnType<typeof UsageChart.useActor>; today: string }) {
  const choice = useSelector(actor, (s) => s.context.choice);
  const range = useSelector(actor, (s) => s.context.range);
  const errors = useSelector(actor, (s) => s.context.rangeErrors);
  const [open, setOpen] = useState(choice === 'custom');
  const [fields, setFields] = useState(range);
  const customId = useId();
  const pressed = (preset: RangeChoice) => (preset === 'custom' ? open : !open && choice === preset);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    actor.send({ type: 'range.custom', ...fields });
  };
  return (
    <Stack gap="3">
      <Fieldset.Root>
        <Fieldset.Legend fontWeight="medium">{t.rangeLegend}</Fieldset.Legend>
        <HStack gap="2" wrap="wrap" mt="2">
          {RANGE_PRESETS.map((preset) => (
            <Button
              key={preset}
              size="sm"
              variant={pressed(preset) ? 'solid' : 'outline'}
              colorPalette={pressed(preset) ? 'brand' : undefined}
              aria-pressed={pressed(preset)}
              onClick={() => {
                setOpen(false);
                actor.send({ type: 'range.preset', preset });
              }}
            >
              {t.presets[preset]}
            </Button>
          ))}
          <Button
            size="sm"
            variant={open ? 'solid' : 'outline'}
            colorPalette={open ? 'brand' : undefined}
            aria-pressed={open}
            aria-controls={customId}
            onClick={() => {
              setFields(range);
              setOpen(true);
            }}
          >
            {t.presets.custom}
          </Button>
        </HStack>
      </Fieldset.Root>
      <form id={customId} hidden={!open} onSubmit={submit} noValidate>
        <HStack gap="3" align="flex-start" wrap="wrap">
          {(['from', 'to'] as const).map((name) => (
            <Field.Root key={name} invalid={Boolean(errors[name])} w={{ base: 'full', sm: '48' }}>
              <Field.Label>{t[name]}</Field.Label>
              <Input
                type="date"
                name={name}
                value={fields[name]}
                max={today}
                onChange={(event) => setFields({ ...fields, [name]: event.target.value })}
              />
              <Field.ErrorText>{errors[name] && say(errors[name], TEXTS)}</Field.ErrorText>
            </Field.Root>
          ))}
          <Button type="submit" size="sm" mt={{ base: '0', sm: '7' }} colorPalette="brand">
            {t.showRange}
          </Button>
        </HStack>
      </form>
      <Text fontSize="sm" color="fg.muted">
        {t.rangeShown(longDay(range.from), longDay(range.to))}
      </Text>
    </Stack>
  );
}

/** The plan does not include analytics: what Professional adds, and the way to it. */
function UpgradeOffer() {
  const plan = planWith('analytics').name;
  return (
    <SectionCard title={t.upgradeHeading} headingId="usage-upgrade" variant="subtle" bg="brand.subtle">
      <Text>{t.upgradeLead(plan)}</Text>
      <List.Root gap="1.5" ps="5">
        {t.upgradePoints.map((point) => (
          <List.Item key={point}>{point}</List.Item>
        ))}
      </List.Root>
      <Button asChild colorPalette="brand" alignSelf="flex-start">
        <RouterLink to="/subscription">{t.upgradeAction(plan)}</RouterLink>
      </Button>
    </SectionCard>
  );
}

const totalOf = (data: UsageAnalytics, what: 'queries' | 'tokens') => data.days.reduce((sum, day) => sum + day[what], 0);

function Figures({ data }: { data: UsageAnalytics }) {
  const figures: Array<[string, string]> = [
    [t.queries, formatNumber(totalOf(data, 'queries'))],
    [t.tokens, formatNumber(totalOf(data, 'tokens'))],
    [t.p50, t.milliseconds(formatNumber(data.p50_processing_ms))],
    [t.p95, t.milliseconds(formatNumber(data.p95_processing_ms))],
  ];
  return (
    <SimpleGrid columns={{ base: 2, md: 4 }} gap="4">
      {figures.map(([label, value]) => (
        <Stat.Root key={label}>
          <Stat.Label>{label}</Stat.Label>
          <Stat.ValueText>{value}</Stat.ValueText>
        </Stat.Root>
      ))}
    </SimpleGrid>
  );
}

// The loading state below is the filled page's own layout, its words hidden under skeletons, so the
// figures and the chart keep their places when the answer arrives and nothing under them moves
// (issue 40). Hidden, the words are not read out: the region says it is loading, as before.

/** A section's card with its heading's room. */
function SectionLoading({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card.Root variant="outline" minW="0">
      <Card.Body gap="4">
        <Skeleton w="fit-content">
          <Heading as="p" size="md">
            {title}
          </Heading>
        </Skeleton>
        {children}
      </Card.Body>
    </Card.Root>
  );
}

/** Words set as the chart sets them, hidden under a skeleton: its legend, axes and dates keep their lines. */
const HiddenWords = ({ children, ...props }: TextProps) => (
  <Skeleton w="fit-content" maxW="full">
    <Text {...props}>{children}</Text>
  </Skeleton>
);

/** The detailed chart's room (DailyUsageChart with words): the legend, the y axis' name, the bars, the dates and the x axis' name. */
function ChartLoading() {
  return (
    <Stack gap="2">
      <HStack justify="space-between" wrap="wrap" gap="2" fontSize="sm">
        <HiddenWords>{CHART_WORDS.legend}</HiddenWords>
        <HiddenWords fontSize="xs">{CHART_WORDS.help}</HiddenWords>
      </HStack>
      <HiddenWords fontSize="xs">{CHART_WORDS.yAxis}</HiddenWords>
      <Flex gap="2" pt="2">
        <Box minW="6" flexShrink={0} />
        <Stack flex="1" minW="0" gap="0">
          <Skeleton h="48" />
          <Text fontSize="xs" mt="1" visibility="hidden">
            0
          </Text>
          <Text fontSize="xs" visibility="hidden">
            {CHART_WORDS.xAxis}
          </Text>
        </Stack>
      </Flex>
    </Stack>
  );
}

function AnalyticsLoading() {
  return (
    <Stack gap="6" role="status" aria-label={messages.loading}>
      <SectionLoading title={t.totalsHeading}>
        <SimpleGrid columns={{ base: 2, md: 4 }} gap="4">
          {[t.queries, t.tokens, t.p50, t.p95].map((label) => (
            <Stat.Root key={label}>
              {/* The label is known already; the value itself is the skeleton (`asChild`): the list
                  (a dl) holds only its term and value, as axe asks, in the boxes the figures take. */}
              <Stat.Label>{label}</Stat.Label>
              <Skeleton asChild display="flex" w="50%">
                <Stat.ValueText>0</Stat.ValueText>
              </Skeleton>
            </Stat.Root>
          ))}
        </SimpleGrid>
      </SectionLoading>
      <SectionLoading title={t.chartHeading}>
        <ChartLoading />
      </SectionLoading>
      <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6">
        <Skeleton h="40" />
        <Skeleton h="40" />
      </SimpleGrid>
    </Stack>
  );
}

function Analytics({ data, busy }: { data: UsageAnalytics; busy: boolean }) {
  return (
    <>
      <Section title={t.totalsHeading} busy={busy}>
        <Figures data={data} />
      </Section>
      <Section title={t.chartHeading} busy={busy}>
        <Suspense fallback={<ChartLoading />}>
          <DailyUsageChart
            days={data.days}
            title={t.chartTitle(longDay(data.from), longDay(data.to))}
            summary={t.chartSummary(formatNumber(totalOf(data, 'queries')), formatNumber(totalOf(data, 'tokens')))}
            words={CHART_WORDS}
          />
        </Suspense>
      </Section>
      {/* Each table its own height: stretched to its neighbour's, a shorter one's rows would spread apart. */}
      <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6" alignItems="start" aria-busy={busy}>
        <UsageTotals
          caption={t.byTaskHeading}
          headers={[t.task, t.queries, t.tokens]}
          rows={data.by_task.map((row) => ({ key: row.task, label: t.tasks[row.task] ?? row.task, queries: row.queries, tokens: row.tokens }))}
        />
        <UsageTotals
          caption={t.byCredentialHeading}
          headers={[t.credential, t.queries, t.tokens]}
          rows={data.by_credential.map((row) => ({
            key: `${row.kind}:${row.id ?? row.name}`,
            label: row.name,
            // The web app names itself; a key or an add-on says what kind of credential it is.
            detail: row.kind === 'web' ? undefined : t.credentialKinds[row.kind],
            queries: row.queries,
            tokens: row.tokens,
          }))}
        />
      </SimpleGrid>
    </>
  );
}

const selectView = (s: UsageSnapshot) => ({
  status: usageStatus(s),
  holding: s.hasTag('holding'),
  busy: s.hasTag('reloading'),
  downloading: s.hasTag('downloading'),
  data: s.context.data,
  failure: s.context.failure && say(s.context.failure, TEXTS),
});
const sameView = (a: ReturnType<typeof selectView>, b: ReturnType<typeof selectView>) =>
  a.status === b.status && a.holding === b.holding && a.busy === b.busy && a.downloading === b.downloading && a.data === b.data && a.failure === b.failure;

export default function UsagePage() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const [today] = useState(() => utcToday());
  const actor = UsageChart.useActor({ input: { auth, today }, effects: { notify: toastEffect } });
  const view = useDeferredSelector(actor, selectView, sameView);

  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <Stack gap="6">
        <PageHeader title={t.title} lead={t.lead} />
        {view.status === 'upgrade' ? (
          <UpgradeOffer />
        ) : (
          <>
            <Card.Root variant="outline">
              <Card.Body gap="4">
                <RangePicker actor={actor} today={today} />
                {view.status === 'loading' && (
                  // The download's room: a button and its note.
                  <Stack gap="1" align="flex-start">
                    <Skeleton h="9" w="32" />
                    <HiddenWords fontSize="xs">{t.downloadCsvNote}</HiddenWords>
                  </Stack>
                )}
                {view.status === 'loaded' && (
                  <Stack gap="1" align="flex-start">
                    <Button variant="outline" size="sm" onClick={() => actor.send({ type: 'csv.download' })} loading={view.downloading} loadingText={t.downloadCsvBusy} disabled={view.busy}>
                      {t.downloadCsv}
                    </Button>
                    <Text fontSize="xs" color="fg.muted">
                      {t.downloadCsvNote}
                    </Text>
                  </Stack>
                )}
              </Card.Body>
            </Card.Root>
            {view.busy && (
              <Text role="status" fontSize="sm" color="fg.muted">
                {t.reloading}
              </Text>
            )}
            {/*
              Until the first load answers (or a moment has passed), a spinner rather than the figures'
              placeholders, and no export below: the Professional offer that may come instead of the
              picker and the figures is far shorter, and would pull up what is under it.
            */}
            {view.status === 'loading' && (view.holding ? <PageSpinner /> : <AnalyticsLoading />)}
            {view.status === 'failed' && (
              <Alert.Root status="error" alignItems="center">
                <Alert.Indicator />
                <Alert.Content>
                  <Alert.Title>{t.loadFailed}</Alert.Title>
                  {view.failure && <Alert.Description>{view.failure}</Alert.Description>}
                </Alert.Content>
                <Button size="sm" variant="outline" flexShrink={0} onClick={() => actor.send({ type: 'analytics.retry' })}>
                  {t.retry}
                </Button>
              </Alert.Root>
            )}
            {view.status === 'empty' && (
              <Section title={t.emptyTitle} busy={view.busy}>
                <Text color="fg.muted">{t.emptyText}</Text>
              </Section>
            )}
            {view.status === 'loaded' && view.data && <Analytics data={view.data} busy={view.busy} />}
          </>
        )}
        {!view.holding && (
          <Section title={t.exportHeading}>
            <AccountExport />
          </Section>
        )}
      </Stack>
    </Container>
  );
}

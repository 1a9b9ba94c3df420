// The dashboard (product spec §5): over 300 lines because its sections (welcome, usage cards, the
// daily chart, get started) share one chart's state and its loading and failure rendering.
import {
  Alert,
  Box,
  Button,
  Card,
  Container,
  Flex,
  Heading,
  HStack,
  Link,
  List,
  Progress,
  SimpleGrid,
  Skeleton,
  Stack,
  Stat,
  Text,
} from '@chakra-ui/react';
import { lazy, memo, Suspense, useId, useState, type ReactNode } from 'react';
import { RouterLink } from '../app/RouterLink';
import type { DashboardPart } from '../../machines/dashboard/dashboard.actors';
import { dashboardMachine, metersStatus, partStatus, type DashboardSnapshot } from '../../machines/dashboard/dashboard.machine';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { NEW_TAB, NewTabNote } from '../components/ExternalLink';
import { InstallAddOnButton } from '../components/InstallAddOnButton';
import { PlanBadge } from '../components/PlanBadge';
import * as messages from '../content/messages';
import { formatNumber } from '../lib/formats';
import {
  formatLimit,
  isActive,
  isNearLimit,
  isNewUser,
  limitsOf,
  meter,
  scheduledChange,
  type Meter,
} from '../lib/planDisplay';
import { usePageTitle } from '../lib/usePageTitle';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';
import { createChartContext, useDeferredSelector } from '../lib/chart';
import { PageHeader } from '../components/PageHeader';
import { PageSpinner } from '../components/PageSpinner';

const t = messages.dashboard;

// Its own chunk: the dashboard's first paint does not wait for the chart.
const DailyUsageChart = lazy(() => import('../components/DailyUsageChart'));

/** The chart the page runs; tests hand in one with fake effects. */
export const DashboardChart = createChartContext(dashboardMachine);

type Status = ReturnType<typeof partStatus>;

function DashCard({ title, status, children }: { title: string; status?: Status; children: ReactNode }) {
  const id = useId();
  return (
    <Card.Root as="section" aria-labelledby={id} aria-busy={status === 'loading'} variant="outline" h="full">
      <Card.Body gap="3">
        <Heading as="h2" id={id} size="sm" color="fg.muted" fontWeight="medium">
          {title}
        </Heading>
        {children}
      </Card.Body>
    </Card.Root>
  );
}

/** A part that could not be loaded: said so, with a retry (never a blank card). */
function Unavailable({ text, onRetry }: { text: string; onRetry: () => void }) {
  return (
    <Stack gap="3" align="flex-start">
      <Text color="fg.muted">{text}</Text>
      <Button size="sm" variant="outline" onClick={onRetry}>
        {t.retry}
      </Button>
    </Stack>
  );
}

// The placeholders below are the filled parts' own elements, hidden under a skeleton, so a part
// keeps its height when its data arrives and nothing under it moves (issue 40).

/** The plan card's placeholder: a badge and a status line. */
function PlanLoading() {
  return (
    <HStack gap="3">
      <Skeleton display="flex">
        <PlanBadge plan="free" />
      </Skeleton>
      <Skeleton>
        <Text fontWeight="medium">{messages.plan.active}</Text>
      </Skeleton>
    </HStack>
  );
}

/**
 * A meter's room, whichever way it is filled: a figure with its limit, bar and share, or a figure
 * with "no limit" (whose words take two lines on a phone). The cards stand in one row from tablets
 * up, and stacked on a phone, where a card growing would push the rest down.
 */
const METER_HEIGHT = '6.5rem';

function MeterLoading() {
  return (
    <Stack gap="2" minH={METER_HEIGHT}>
      <Skeleton w="40%">
        <Text fontSize="3xl" fontWeight="bold">
          0
        </Text>
      </Skeleton>
      <Skeleton h="2" />
      <Skeleton w="30%">
        <Text fontSize="sm">0%</Text>
      </Skeleton>
    </Stack>
  );
}

/** The overview's three figures, their labels shown, their values still coming. */
function OverviewLoading({ labels }: { labels: readonly string[] }) {
  return (
    <SimpleGrid columns={{ base: 1, sm: 3 }} gap="4">
      {labels.map((label) => (
        <Stat.Root key={label}>
          <Stat.Label>{label}</Stat.Label>
          {/* The value itself is the skeleton (`asChild`): the list (a dl) holds only its term and
              value, as axe asks, and the value's box is the one the figure comes in. */}
          <Skeleton asChild display="flex" w="50%">
            <Stat.ValueText>0</Stat.ValueText>
          </Skeleton>
        </Stat.Root>
      ))}
    </SimpleGrid>
  );
}

/** The daily chart's room: its bars and the line of dates under them (DailyUsageChart, compact). */
function DailyLoading() {
  return (
    <Box>
      <Skeleton h="24" />
      <Text fontSize="xs" mt="1" visibility="hidden" aria-hidden="true">
        0
      </Text>
    </Box>
  );
}

function MeterView({ title, value, ofText, unlimitedText }: { title: string; value: Meter; ofText: (limit: string) => string; unlimitedText: string }) {
  return (
    <Stack gap="2" minH={METER_HEIGHT}>
      <HStack align="baseline" gap="2" wrap="wrap">
        <Text fontSize="3xl" fontWeight="bold" letterSpacing="tight">
          {formatNumber(value.used)}
        </Text>
        <Text color="fg.muted">{value.unlimited ? unlimitedText : ofText(formatLimit(value.limit, messages.plan.unlimited))}</Text>
      </HStack>
      {value.shown !== null && (
        <Progress.Root value={Math.min(100, value.percent ?? 0)} colorPalette={isNearLimit(value) ? 'orange' : 'brand'} size="sm">
          <Progress.Track aria-label={title} aria-valuetext={t.percentUsed(formatNumber(value.shown))} rounded="full">
            <Progress.Range />
          </Progress.Track>
          <Text fontSize="sm" color="fg.muted" mt="1.5">
            {t.percentUsed(formatNumber(value.shown))}
          </Text>
        </Progress.Root>
      )}
    </Stack>
  );
}

function GetStarted() {
  const [open, setOpen] = useState(false);
  const stepsId = useId();
  return (
    <Card.Root as="section" aria-labelledby="get-started" variant="subtle" bg="brand.subtle">
      <Card.Body gap="4">
        <Stack gap="1">
          <Heading as="h2" id="get-started" size="lg">
            {t.getStartedTitle}
          </Heading>
          <Text color="fg.muted">{t.getStartedText}</Text>
        </Stack>
        <HStack gap="3" wrap="wrap">
          <InstallAddOnButton />
          <Button variant="outline" aria-expanded={open} aria-controls={stepsId} onClick={() => setOpen((value) => !value)}>
            {t.quickStart}
          </Button>
        </HStack>
        <List.Root as="ol" id={stepsId} hidden={!open} gap="1.5" ps="5">
          {t.quickStartSteps.map((step) => (
            <List.Item key={step}>{step}</List.Item>
          ))}
        </List.Root>
        {/* Beside the spec's two buttons: the full guide, with the connect step and a first query to try. */}
        <Link asChild alignSelf="flex-start" color="brand.fg" fontWeight="medium">
          <RouterLink to="/guide">{messages.guide.openGuide}</RouterLink>
        </Link>
      </Card.Body>
    </Card.Root>
  );
}

const selectView = (s: DashboardSnapshot) => ({
  usage: partStatus(s, 'usage'),
  subscription: partStatus(s, 'subscription'),
  daily: partStatus(s, 'daily'),
  meters: metersStatus(s),
  holding: s.hasTag('holding'),
  refreshing: s.hasTag('loading'),
  data: s.context.data,
});
const sameView = (a: ReturnType<typeof selectView>, b: ReturnType<typeof selectView>) =>
  a.usage === b.usage &&
  a.subscription === b.subscription &&
  a.daily === b.daily &&
  a.meters === b.meters &&
  a.holding === b.holding &&
  a.refreshing === b.refreshing &&
  a.data === b.data;

export default function DashboardPage() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const fullName = useAuthSelector((s) => s.context.user?.full_name ?? '');
  const actor = DashboardChart.useActor({ input: { auth } });
  const view = useDeferredSelector(actor, selectView, sameView);
  return <DashboardView view={view} fullName={fullName} actor={actor} />;
}

/**
 * "Welcome back" once the usage shows queries, "Welcome aboard" when it shows none (or could not be
 * loaded). Until it answers, the line keeps its place empty: greeted as new and then as returning,
 * a returning person saw the greeting change under their eyes.
 */
function Greeting({ usage, totalQueries, fullName }: { usage: ReturnType<typeof partStatus>; totalQueries: number | undefined; fullName: string }) {
  if (usage === 'loading') {
    return (
      <Box as="span" visibility="hidden" aria-hidden>
        {t.greetingNew(fullName)}
      </Box>
    );
  }
  return (totalQueries ?? 0) > 0 ? t.greeting(fullName) : t.greetingNew(fullName);
}

/**
 * The page as drawn from the chart's view. Apart (and memo'd) so that the render in which the
 * deferred view is still the previous one stops here: drawing the whole page twice for each
 * answer was a long task of its own at every answer on a slow phone (issue 40).
 */
const DashboardView = memo(function DashboardView({
  view,
  fullName,
  actor,
}: {
  view: ReturnType<typeof selectView>;
  fullName: string;
  actor: ReturnType<typeof DashboardChart.useActor>;
}) {
  const { marketplaceUrl, spreadsheetAppUrl, supportEmail } = useRuntimeConfig();
  const { usage, subscription, daily } = view.data;
  const retry = (part: DashboardPart) => () => actor.send({ type: `${part}.retry` });

  // When the subscription failed to load, its limits are missing: the spec's defaults apply.
  const limits = limitsOf(subscription);
  const monthly = meter(usage?.monthly_queries, limits.monthlyQueries);
  const tokens = meter(usage?.daily_tokens, limits.dailyTokens);
  const change = scheduledChange(subscription);

  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <Stack gap="6">
        <Flex justify="space-between" align={{ base: 'flex-start', sm: 'center' }} gap="4" direction={{ base: 'column', sm: 'row' }}>
          <PageHeader title={t.title} lead={<Greeting usage={view.usage} totalQueries={usage?.total_queries} fullName={fullName} />} />
          {/* As wide as its "Refreshing..." from the start: the page opens refreshing, and the button would shrink. */}
          <Button variant="outline" minW="36" onClick={() => actor.send({ type: 'dashboard.refresh' })} loading={view.refreshing} loadingText={t.refreshing}>
            {t.refresh}
          </Button>
        </Flex>

        {/* Until the usage and the plan have answered (or a moment has passed): what comes above the cards depends on them. */}
        {view.holding ? (
          <PageSpinner />
        ) : (
          <>
            {view.meters === 'ready' && isNearLimit(monthly) && (
              <Alert.Root status="warning" alignItems="center">
                <Alert.Indicator />
                <Alert.Content>
                  <Alert.Description>{t.warning(formatNumber(monthly.shown ?? 0))}</Alert.Description>
                </Alert.Content>
                <Button asChild size="sm" colorPalette="orange" flexShrink={0}>
                  <RouterLink to="/subscription">{t.upgradePlan}</RouterLink>
                </Button>
              </Alert.Root>
            )}

            {view.usage !== 'loading' && isNewUser(usage?.monthly_queries) && <GetStarted />}

            <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
              <DashCard title={t.planTitle} status={view.subscription}>
                {view.subscription === 'loading' && <PlanLoading />}
                {view.subscription === 'failed' && <Unavailable text={t.planUnavailable} onRetry={retry('subscription')} />}
                {subscription && (
                  <Stack gap="2" align="flex-start">
                    <HStack gap="3">
                      <PlanBadge plan={subscription.plan} />
                      <Text fontWeight="medium" color={isActive(subscription.status) ? 'green.fg' : 'fg.muted'}>
                        {isActive(subscription.status) ? messages.plan.active : messages.plan.inactive}
                      </Text>
                    </HStack>
                    {change && (
                      <Text fontSize="sm" color="fg.muted">
                        {messages.plan.scheduledChange(change.plan, change.date)}
                      </Text>
                    )}
                  </Stack>
                )}
              </DashCard>
              {(
                [
                  [t.monthlyQueries, monthly, t.ofQueries, t.queriesUnlimited],
                  [t.dailyTokens, tokens, t.ofTokens, t.tokensUnlimited],
                ] as const
              ).map(([title, value, ofText, unlimitedText]) => (
                <DashCard key={title} title={title} status={view.meters === 'noLimits' ? 'ready' : view.meters}>
                  {view.meters === 'loading' && <MeterLoading />}
                  {view.meters === 'failed' && <Unavailable text={t.usageUnavailable} onRetry={retry('usage')} />}
                  {view.meters === 'ready' && <MeterView title={title} value={value} ofText={ofText} unlimitedText={unlimitedText} />}
                  {view.meters === 'noLimits' && (
                    <Stack gap="2">
                      <Text fontSize="3xl" fontWeight="bold" letterSpacing="tight">
                        {formatNumber(value.used)}
                      </Text>
                      <Unavailable text={t.limitsUnavailable} onRetry={retry('subscription')} />
                    </Stack>
                  )}
                </DashCard>
              ))}
            </SimpleGrid>

            <SimpleGrid columns={{ base: 1, lg: 3 }} gap="6">
              <Box gridColumn={{ lg: 'span 2' }}>
                <DashCard title={t.overviewTitle} status={view.usage}>
                  {view.usage === 'loading' && <OverviewLoading labels={[t.queriesPerMinute, t.processingTime, t.totalQueries]} />}
                  {view.usage === 'failed' && <Unavailable text={t.usageUnavailable} onRetry={retry('usage')} />}
                  {usage && (
                    <SimpleGrid columns={{ base: 1, sm: 3 }} gap="4">
                      {(
                        [
                          [t.queriesPerMinute, formatNumber(usage.queries_per_minute ?? 0)],
                          [t.processingTime, t.milliseconds(formatNumber(Math.round(usage.processing_time ?? 0)))],
                          [t.totalQueries, formatNumber(usage.total_queries ?? 0)],
                        ] as const
                      ).map(([label, value]) => (
                        <Stat.Root key={label}>
                          <Stat.Label>{label}</Stat.Label>
                          <Stat.ValueText>{value}</Stat.ValueText>
                        </Stat.Root>
                      ))}
                    </SimpleGrid>
                  )}
                  <Box mt="5" aria-busy={view.daily === 'loading'}>
                    {/* The chart itself carries this as its accessible name. */}
                    <Text fontSize="sm" color="fg.muted" mb="2" aria-hidden="true">
                      {t.dailyTitle}
                    </Text>
                    {view.daily === 'loading' && <DailyLoading />}
                    {view.daily === 'failed' && <Unavailable text={t.dailyUnavailable} onRetry={retry('daily')} />}
                    {daily && (
                      <Suspense fallback={<DailyLoading />}>
                        <DailyUsageChart days={daily} />
                      </Suspense>
                    )}
                  </Box>
                  <Link asChild alignSelf="flex-start" color="brand.fg" fontWeight="medium" mt="2">
                    <RouterLink to="/usage">{t.usageLink}</RouterLink>
                  </Link>
                </DashCard>
              </Box>
              <DashCard title={t.quickActionsTitle}>
                <Stack gap="3">
                  {(
                    [
                      [t.openMarketplace, marketplaceUrl],
                      [t.openSpreadsheet, spreadsheetAppUrl],
                    ] as const
                  ).map(([label, href]) => (
                    <Button key={label} asChild variant="outline" justifyContent="flex-start">
                      <a href={href} {...NEW_TAB}>
                        {label}
                        <NewTabNote />
                      </a>
                    </Button>
                  ))}
                  <Button asChild variant="outline" justifyContent="flex-start">
                    <a href={`mailto:${supportEmail}`}>{t.emailSupport}</a>
                  </Button>
                  <Button asChild variant="outline" justifyContent="flex-start">
                    <RouterLink to="/functions">{t.customFunctions}</RouterLink>
                  </Button>
                </Stack>
              </DashCard>
            </SimpleGrid>
          </>
        )}
      </Stack>
    </Container>
  );
});

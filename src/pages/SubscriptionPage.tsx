import { Badge, Box, Button, Container, DataList, Heading, SimpleGrid, Stack, Text, VisuallyHidden } from '@chakra-ui/react';
import { useDeferredSelector } from '../lib/chart';
import { useEffect, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import { billedPlanOf, throughTeam, type SubscriptionSnapshot } from '../../machines/subscription/subscription.machine';
import { useTeamPlanSeen } from '../app/membership';
import { useSubscriptionActor } from '../app/subscription';
import { PageSpinner } from '../components/PageSpinner';
import { PlanCard } from '../components/PlanCard';
import { SectionCard } from '../components/SectionCard';
import * as messages from '../content/messages';
import { PLAN_OFFERS, type PlanOffer } from '../content/plans';
import type { SubscriptionInfo } from '../../machines/shared/api';
import { formatDate, formatLimit, isActive, limitsOf, scheduledChange } from '../lib/planDisplay';
import { planName } from '../../contract/plans';
import { usePageTitle } from '../lib/usePageTitle';
import { PageHeader } from '../components/PageHeader';

const t = messages.subscription;

/** Plan, status, and the next billing date or when the plan ends: of a subscription, or of a member's own one. */
function periodRows(subscription: SubscriptionInfo): Array<[string, string]> {
  const change = scheduledChange(subscription);
  const name = planName(subscription.plan);
  // A scheduled downgrade means no further charge: the period's end is when the plan ends.
  const periodEnd: Array<[string, string]> = change
    ? [[t.planEnds, t.planEndsOn(name, change.date, change.plan)]]
    : subscription.current_period_end
      ? [[t.nextBilling, formatDate(subscription.current_period_end)]]
      : [];
  return [[t.plan, name], [t.status, isActive(subscription.status) ? messages.plan.active : messages.plan.inactive], ...periodEnd];
}

function SubscriptionCard({ id, title, rows, reloading, children }: { id: string; title: string; rows: Array<[string, string]>; reloading: boolean; children?: ReactNode }) {
  return (
    <SectionCard title={title} headingId={id} busy={reloading} mb="10">
      {children}
      <DataList.Root orientation="horizontal">
        {rows.map(([label, value]) => (
          <DataList.Item key={label}>
            <DataList.ItemLabel minW="44">{label}</DataList.ItemLabel>
            <DataList.ItemValue>{value}</DataList.ItemValue>
          </DataList.Item>
        ))}
      </DataList.Root>
    </SectionCard>
  );
}

/** The plan that applies and its limits; a team member's Team says who pays for it, and their own subscription follows. */
function CurrentSubscription({ subscription, reloading }: { subscription: SubscriptionInfo; reloading: boolean }) {
  const limits = limitsOf(subscription);
  const { own } = subscription;
  const rows: Array<[string, string]> = [
    ...periodRows(subscription),
    ...(own ? [[t.paidBy, t.paidByTeam] as [string, string]] : []),
    [t.monthlyLimit, formatLimit(limits.monthlyQueries, messages.plan.unlimited)],
    [t.dailyLimit, formatLimit(limits.dailyTokens, messages.plan.unlimited)],
  ];
  return (
    <>
      <SubscriptionCard id="current-subscription" title={t.currentTitle} rows={rows} reloading={reloading} />
      {own && (
        <SubscriptionCard id="own-subscription" title={t.ownTitle} rows={periodRows(own)} reloading={reloading}>
          <Text color="fg.muted">{t.ownText(planName(own.plan))}</Text>
        </SubscriptionCard>
      )}
    </>
  );
}

/**
 * Product spec §2: the current plan's button is disabled; Downgrade for free; Upgrade to … for the
 * others. With the current plan unknown, neither direction can be claimed. A team member's buttons
 * change their own plan; Team is their team's.
 */
function planAction(plan: PlanOffer, billedPlan: string | null, member: boolean): string {
  if (billedPlan === null) return t.choose(plan.name);
  if (member && plan.id === 'team') return t.throughTeam;
  if (plan.id === billedPlan) return member ? t.ownPlan : t.currentPlan;
  return plan.id === 'free' ? t.downgrade : t.upgradeTo(plan.name);
}

/** The badge beside a plan's name: the current plan, or for a team member their own plan and their team's. */
function planBadge(plan: PlanOffer, billedPlan: string | null, member: boolean): string | null {
  if (member && plan.id === 'team') return t.teamPlan;
  if (plan.id !== billedPlan) return null;
  return member ? t.ownPlan : t.currentPlan;
}

const selectView = (s: SubscriptionSnapshot) => ({
  subscription: s.context.subscription,
  billedPlan: billedPlanOf(s.context),
  member: throughTeam(s.context),
  choosing: s.context.choosing,
  reloading: s.hasTag('reloading'),
  /** Per plan card, in order: whether its button may start a checkout now. */
  choosable: PLAN_OFFERS.map((plan) => s.can({ type: 'plan.choose', plan: plan.id })),
});
const sameView = (a: ReturnType<typeof selectView>, b: ReturnType<typeof selectView>) =>
  a.subscription === b.subscription &&
  a.billedPlan === b.billedPlan &&
  a.member === b.member &&
  a.choosing === b.choosing &&
  a.reloading === b.reloading &&
  a.choosable.every((can, i) => can === b.choosable[i]);

export default function SubscriptionPage() {
  usePageTitle(t.title);
  const actor = useSubscriptionActor();
  const loading = useDeferredSelector(actor, (s) => s.hasTag('loading'));
  const { subscription, billedPlan, member, choosing, reloading, choosable } = useDeferredSelector(actor, selectView, sameView);
  const location = useLocation();
  const returnedFromCheckout = new URLSearchParams(location.search).get('checkout') === 'success';

  // The Team plan shown (a Team checkout paid here or in another tab, or a member's page): the
  // payer of a Team checkout now owns a team, which the top bar links.
  const teamPlanSeen = useTeamPlanSeen();
  const shownPlan = subscription?.plan;
  useEffect(() => {
    if (shownPlan === 'team') teamPlanSeen();
  }, [shownPlan, teamPlanSeen]);

  // Back from a paid checkout: the plan has changed (the first load covers it when the page opens here).
  useEffect(() => {
    if (returnedFromCheckout) actor.send({ type: 'subscription.reload' });
  }, [actor, returnedFromCheckout, location.key]);

  if (loading) return <PageSpinner />;
  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.heading} lead={t.lead} mb="8" />
      {subscription && <CurrentSubscription subscription={subscription} reloading={reloading} />}
      <Box as="section" aria-labelledby="plans-title">
        <VisuallyHidden asChild>
          <h2 id="plans-title">{t.plansTitle}</h2>
        </VisuallyHidden>
        <SimpleGrid columns={{ base: 1, md: 3 }} gap="6" alignItems="stretch">
          {PLAN_OFFERS.map((plan, i) => {
            const badge = planBadge(plan, billedPlan, member);
            return (
              <PlanCard
                key={plan.id}
                plan={plan}
                badge={
                  badge && (
                    <Badge colorPalette="green" variant="subtle">
                      {badge}
                    </Badge>
                  )
                }
                action={
                  <Button
                    w="full"
                    colorPalette="brand"
                    variant={plan.popular ? 'solid' : 'outline'}
                    disabled={!choosable[i]}
                    loading={choosing === plan.id}
                    loadingText={t.checkoutBusy}
                    onClick={() => actor.send({ type: 'plan.choose', plan: plan.id })}
                  >
                    {planAction(plan, billedPlan, member)}
                  </Button>
                }
              />
            );
          })}
        </SimpleGrid>
      </Box>
      <Box as="section" aria-labelledby="faq-title" mt="14" maxW="3xl">
        <Heading as="h2" id="faq-title" size="xl" mb="6">
          {t.faqTitle}
        </Heading>
        <Stack gap="5">
          {t.faq.map((item) => (
            <Box key={item.q}>
              <Heading as="h3" size="lg" mb="1">
                {item.q}
              </Heading>
              <Text color="fg.muted">{item.a}</Text>
            </Box>
          ))}
        </Stack>
      </Box>
    </Container>
  );
}

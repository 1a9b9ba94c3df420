import { Alert, Badge, Box, Button, Card, Container, Heading, HStack, Link, List, Stack, Text } from '@chakra-ui/react';
import { lazy, Suspense, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { teamMachine, type TeamSnapshot } from '../../machines/team/team.machine';
import { utcThisMonth } from '../../machines/usage/usage.range';
import { useMembershipKnown } from '../app/membership';
import { useAuthRef, useAuthSelector } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { PageHeader } from '../components/PageHeader';
import { PageSpinner } from '../components/PageSpinner';
import { AfterPageSettled } from '../components/AfterPageSettled';
import { AuditLog, TeamUsageSection } from '../components/team/TeamActivity';
import { InviteForm, PendingInvitations } from '../components/team/TeamInvitations';
import { TeamMembers } from '../components/team/TeamMembers';
import { SecurityPolicyText, TeamSecurity } from '../components/team/TeamSecurity';
import { TeamBilling, TeamSettings } from '../components/team/TeamSettings';
import { toastEffect } from '../components/Toaster';
import * as messages from '../content/messages';
import { FAILURE_TEXTS, say } from '../content/say';
import { createChartContext, useDeferredSelector, useSelector } from '../lib/chart';
import { planName } from '../../contract/plans';
import { managesTeam } from '../../contract/roles';
import { usePageTitle } from '../lib/usePageTitle';

const t = messages.team;
/** The sections the team chart's failures are in. */
const TEXTS = { team: t, ...FAILURE_TEXTS };

/*
 * The dialog that asks before removing someone, leaving or handing the team over is a chunk of its
 * own (Chakra's dialog, its focus trap and layers: about 15 KB as sent), asked for once the page has
 * drawn what it first shows (`AfterPageSettled`: at the latest on the first key or pointer press), or
 * when a change asks first, so the team's first draw and its data do not share the network with it.
 */
const ChangeConfirmation = lazy(() => import(/* webpackChunkName: "team-confirmation" */ '../components/team/ChangeConfirmation'));

/** The team chart the page runs; tests may hand in one with fake effects. */
export const TeamChart = createChartContext(teamMachine);

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Box as="section" aria-labelledby={id}>
      <Heading as="h2" id={id} size="xl" mb="4">
        {title}
      </Heading>
      {children}
    </Box>
  );
}

/**
 * A member the team's requirement of two-step sign-in holds back (decisions.md, "Team security
 * policy"): the server refuses the team's members and the rest, so the page shows the team, the
 * server's sentence, the way to the set-up and, for anyone but the owner, Leave.
 */
function HeldByTeamPolicy({ held, owner, onLeave, busy }: { held: string; owner: boolean; onLeave: () => void; busy: boolean }) {
  return (
    <Alert.Root status="warning" maxW="3xl" alignItems="flex-start">
      <Alert.Indicator />
      <Alert.Content gap="3">
        <Alert.Title>{messages.security.requiredTitle}</Alert.Title>
        <Alert.Description>{held}</Alert.Description>
        <Text>{owner ? t.ownerCannotLeave : t.heldLeave}</Text>
        <HStack gap="3" wrap="wrap">
          <Button asChild size="sm" colorPalette="brand">
            <RouterLink to="/profile#two-step-sign-in">{messages.security.requiredAction}</RouterLink>
          </Button>
          {!owner && (
            <Button size="sm" variant="outline" colorPalette="red" disabled={busy} onClick={onLeave}>
              {t.leave}
            </Button>
          )}
        </HStack>
      </Alert.Content>
    </Alert.Root>
  );
}

/** Someone in no team: what Team offers and the way to it. */
function TeamOffer() {
  return (
    <Container maxW="3xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={t.offerHeading} lead={t.offerLead} mb="6" />
      <List.Root gap="2" ps="5" mb="8">
        {t.offerPoints.map((point) => (
          <List.Item key={point}>{point}</List.Item>
        ))}
      </List.Root>
      <Button asChild colorPalette="brand" size="lg">
        <RouterLink to="/subscription">{t.offerAction}</RouterLink>
      </Button>
    </Container>
  );
}

const selectStatus = (s: TeamSnapshot) => (s.hasTag('loading') ? 'loading' : s.matches('notInTeam') ? 'notInTeam' : s.matches('failed') ? 'failed' : 'ready');

export default function TeamPage() {
  usePageTitle(t.title);
  const auth = useAuthRef();
  const userId = useAuthSelector((s) => s.context.user?.id ?? '');
  const navigate = useNavigate();
  const membershipKnown = useMembershipKnown();
  const actor = TeamChart.useActor({
    input: { auth, userId, month: utcThisMonth() },
    effects: {
      notify: toastEffect,
      navigate: (_, { to }) => void navigate(to),
      membershipKnown: (_, { inTeam }) => {
        membershipKnown(inTeam);
        // In no team, no team's requirement holds the person back: the banner goes.
        if (!inTeam) auth.send({ type: 'user.inNoTeam' });
      },
    },
  });
  const status = useDeferredSelector(actor, selectStatus);
  const data = useDeferredSelector(actor, (s) => s.context.data);
  const failure = useSelector(actor, (s) => s.context.failure);
  const month = useSelector(actor, (s) => s.context.month);
  const busy = useSelector(actor, (s) => s.hasTag('changing'));
  const asking = useSelector(actor, (s) => (s.matches({ ready: { changes: 'confirming' } }) ? s.context.changing : null));
  const usageLoading = useSelector(actor, (s) => s.hasTag('usageLoading'));
  const downloading = useSelector(actor, (s) => s.hasTag('downloading'));
  const auditLoading = useSelector(actor, (s) => s.hasTag('auditLoading'));

  if (status === 'loading') return <PageSpinner />;
  if (status === 'notInTeam') return <TeamOffer />;
  if (status === 'failed' || !data) {
    return (
      <Container maxW="6xl" py="12">
        <PageHeader title={t.title} lead={t.loadFailed} mb="4" />
        {failure && (
          <Text role="alert" mb="4" maxW="3xl">
            {say(failure, TEXTS)}
          </Text>
        )}
        <Button onClick={() => actor.send({ type: 'team.retry' })}>{t.retry}</Button>
      </Container>
    );
  }
  const { team, role, ownPaidPlan, members, invitations, usage, audit, held } = data;
  const admin = managesTeam(role);
  const confirmation = (
    <AfterPageSettled now={asking !== null}>
      <Suspense fallback={null}>
        <ChangeConfirmation
          change={asking}
          userId={userId}
          team={team}
          members={members}
          onConfirm={() => actor.send({ type: 'change.confirm' })}
          onCancel={() => actor.send({ type: 'change.cancel' })}
        />
      </Suspense>
    </AfterPageSettled>
  );
  if (held) {
    return (
      <Container maxW="6xl" py={{ base: '8', md: '12' }}>
        <PageHeader title={team.name} lead={t.yourRole(t.roles[role]!)} mb="6" />
        <HeldByTeamPolicy held={say(held, TEXTS)} owner={role === 'owner'} busy={busy} onLeave={() => actor.send({ type: 'member.remove', userId })} />
        {confirmation}
      </Container>
    );
  }
  return (
    <Container maxW="6xl" py={{ base: '8', md: '12' }}>
      <PageHeader title={team.name} lead={t.yourRole(t.roles[role]!)} mb="4" />
      <HStack gap="3" wrap="wrap" mb="8">
        <Badge colorPalette={team.plan_status === 'active' ? 'green' : 'orange'} variant="subtle">
          {t.planStatus[team.plan_status]}
        </Badge>
        <Text color="fg.muted">{t.seats(team.seats_used, team.seat_limit)}</Text>
      </HStack>
      {ownPaidPlan && (
        <Card.Root variant="subtle" mb="8" maxW="3xl">
          <Card.Body gap="2">
            <Text>{t.ownPlanStillBilled(planName(ownPaidPlan))}</Text>
            <Link asChild colorPalette="brand" fontWeight="medium">
              <RouterLink to="/subscription">{t.manageOwnPlan}</RouterLink>
            </Link>
          </Card.Body>
        </Card.Root>
      )}
      <Stack gap="12">
        <Section id="team-members" title={t.membersHeading}>
          {members.length === 1 && admin && (
            <Card.Root variant="subtle" mb="4">
              <Card.Body>
                <Text fontWeight="medium">{t.aloneTitle}</Text>
                <Text color="fg.muted">{t.aloneText}</Text>
              </Card.Body>
            </Card.Root>
          )}
          <TeamMembers
            members={members}
            twoFactorRequired={team.require_two_factor}
            viewer={{ userId, role }}
            busy={busy}
            actions={{
              onCap: (id, cap) => actor.send({ type: 'member.cap', userId: id, cap }),
              onRole: (id, newRole) => actor.send({ type: 'member.role', userId: id, role: newRole }),
              onTransfer: (id) => actor.send({ type: 'member.transfer', userId: id }),
              onRemove: (id) => actor.send({ type: 'member.remove', userId: id }),
            }}
          />
          {role === 'owner' && (
            <Text color="fg.muted" fontSize="sm" mt="3">
              {t.ownerCannotLeave}
            </Text>
          )}
          {confirmation}
        </Section>
        <Section id="team-billing" title={t.billingHeading}>
          <TeamBilling owner={role === 'owner'} members={members} />
        </Section>
        {admin && (
          <Section id="team-settings" title={t.settingsHeading}>
            <TeamSettings
              team={team}
              busy={busy}
              onRename={(name) => actor.send({ type: 'team.rename', name })}
              onDefaultCap={(cap) => actor.send({ type: 'team.defaultCap', cap })}
            />
          </Section>
        )}
        <Section id="team-security" title={t.securityHeading}>
          {admin ? (
            <TeamSecurity
              team={team}
              busy={busy}
              onSave={(requireTwoFactor, sessionMaxAgeHours) => actor.send({ type: 'team.security', requireTwoFactor, sessionMaxAgeHours })}
            />
          ) : (
            <SecurityPolicyText team={team} />
          )}
        </Section>
        {admin && invitations && (
          <>
            <Section id="team-invite" title={t.inviteHeading}>
              <InviteForm onSent={() => actor.send({ type: 'team.reload' })} seatsLeft={team.seat_limit - team.seats_used} />
            </Section>
            <Section id="team-pending" title={t.pendingHeading}>
              <PendingInvitations
                invitations={invitations}
                busy={busy}
                onResend={(id) => actor.send({ type: 'invitation.resend', id })}
                onRevoke={(id) => actor.send({ type: 'invitation.revoke', id })}
              />
            </Section>
          </>
        )}
        {admin && usage && (
          <Section id="team-usage" title={t.usageHeading}>
            <TeamUsageSection
              usage={usage}
              month={month}
              maxMonth={utcThisMonth()}
              loading={usageLoading}
              downloading={downloading}
              onMonth={(value) => actor.send({ type: 'usage.month', month: value })}
              onDownload={() => actor.send({ type: 'usage.download' })}
            />
          </Section>
        )}
        {admin && audit && (
          <Section id="team-audit" title={t.auditHeading}>
            <AuditLog events={audit.events} hasOlder={audit.next !== null} loading={auditLoading} onOlder={() => actor.send({ type: 'audit.older' })} />
          </Section>
        )}
      </Stack>
    </Container>
  );
}

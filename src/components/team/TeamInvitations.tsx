import { Button, Field, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { inviteFormMachine } from '../../../machines/inviteForm/inviteForm.machine';
import { useAuthRef } from '../../app/auth';
import * as messages from '../../content/messages';
import { say } from '../../content/say';
import type { InvitedRole, TeamInvitation } from '../../../machines/shared/api';
import { createChartContext, useSelector } from '../../lib/chart';
import { formatDate } from '../../lib/planDisplay';
import { toastEffect } from '../Toaster';

const t = messages.team;
/** The catalogue's sections the invite form's messages are worded in. */
const TEXTS = { team: t, api: messages.api, auth: messages.auth };

/** The invite form's chart; tests may hand in one with fake effects. */
export const InviteFormChart = createChartContext(inviteFormMachine);

/** The invite form, run by its own chart; `onSent` tells the page to reload its seats and lists. */
export function InviteForm({ onSent, seatsLeft }: { onSent: () => void; seatsLeft: number }) {
  const auth = useAuthRef();
  const actor = InviteFormChart.useActor({ input: { auth }, effects: { notify: toastEffect, sent: () => onSent() } });
  const { email, role, error, busy } = useSelector(actor, (s) => ({ email: s.context.email, role: s.context.role, error: s.context.error, busy: s.hasTag('busy') }), (a, b) => a.email === b.email && a.role === b.role && a.error === b.error && a.busy === b.busy);
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        actor.send({ type: 'form.submit' });
      }}
    >
      <Stack gap="3" direction={{ base: 'column', md: 'row' }} align={{ md: 'flex-start' }}>
        <Field.Root invalid={error !== null} flex="1">
          <Field.Label>{t.inviteEmail}</Field.Label>
          <Input type="email" autoComplete="off" value={email} onChange={(event) => actor.send({ type: 'draft.email', value: event.target.value })} />
          {error !== null && <Field.ErrorText>{say(error, TEXTS)}</Field.ErrorText>}
        </Field.Root>
        <Field.Root maxW={{ md: '40' }}>
          <Field.Label>{t.inviteRole}</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field value={role} onChange={(event) => actor.send({ type: 'draft.role', value: event.target.value as InvitedRole })}>
              <option value="member">{t.roles.member}</option>
              <option value="admin">{t.roles.admin}</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Button type="submit" colorPalette="brand" mt={{ md: '6' }} loading={busy} loadingText={t.inviteBusy}>
          {t.inviteSubmit}
        </Button>
      </Stack>
      {seatsLeft <= 0 && (
        <Text fontSize="sm" color="fg.muted" mt="2">
          {t.noSeatsLeft}
        </Text>
      )}
    </form>
  );
}

/** Pending invitations, each with Resend and Revoke. */
export function PendingInvitations({ invitations, busy, onResend, onRevoke }: { invitations: TeamInvitation[]; busy: boolean; onResend: (id: string) => void; onRevoke: (id: string) => void }) {
  if (invitations.length === 0) return <Text color="fg.muted">{t.noPending}</Text>;
  return (
    <Stack as="ul" gap="2" listStyleType="none">
      {invitations.map((invitation) => (
        <HStack as="li" key={invitation.id} justify="space-between" wrap="wrap" gap="2" borderWidth="1px" rounded="md" px="3" py="2">
          <Stack gap="0">
            <Text>
              <Text as="span" fontWeight="medium">
                {invitation.email}
              </Text>{' '}
              · {t.roles[invitation.role]} · {t.expires(formatDate(invitation.expires_at))}
            </Text>
            {invitation.delivery === 'failed' && (
              <Text fontSize="sm" color="fg.error">
                {t.deliveryFailed}
              </Text>
            )}
          </Stack>
          <HStack gap="1">
            <Button size="xs" variant="outline" disabled={busy} onClick={() => onResend(invitation.id)} aria-label={`${t.resend}: ${invitation.email}`}>
              {t.resend}
            </Button>
            <Button size="xs" variant="outline" colorPalette="red" disabled={busy} onClick={() => onRevoke(invitation.id)} aria-label={`${t.revoke}: ${invitation.email}`}>
              {t.revoke}
            </Button>
          </HStack>
        </HStack>
      ))}
    </Stack>
  );
}

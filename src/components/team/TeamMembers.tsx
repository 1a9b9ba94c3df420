import { Button, Field, HStack, Input, Table, Text } from '@chakra-ui/react';
import { useState } from 'react';
import * as messages from '../../content/messages';
import type { InvitedRole, TeamMember, TeamRole } from '../../lib/api';
import { formatDate, formatNumber } from '../../lib/planDisplay';

const t = messages.team;

export interface MemberActions {
  onCap: (userId: string, cap: number | null) => void;
  onRole: (userId: string, role: InvitedRole) => void;
  onRemove: (userId: string) => void;
}

/** A cap typed into the field: a whole number from 0, or empty for none; undefined when it is neither. */
function parseCap(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return /^\d{1,7}$/.test(trimmed) ? Number(trimmed) : undefined;
}

function CapEditor({ member, onSave, onCancel }: { member: TeamMember; onSave: (cap: number | null) => void; onCancel: () => void }) {
  const [text, setText] = useState(member.monthly_query_cap === null ? '' : String(member.monthly_query_cap));
  const [invalid, setInvalid] = useState(false);
  const save = () => {
    const cap = parseCap(text);
    if (cap === undefined) return setInvalid(true);
    onSave(cap);
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <HStack align="flex-end" gap="2">
        <Field.Root invalid={invalid} maxW="40">
          <Field.Label fontSize="xs">{t.capLabel(member.full_name)}</Field.Label>
          <Input size="sm" inputMode="numeric" value={text} onChange={(event) => (setText(event.target.value), setInvalid(false))} autoFocus />
          {invalid ? <Field.ErrorText>{t.capInvalid}</Field.ErrorText> : <Field.HelperText>{t.capHelp}</Field.HelperText>}
        </Field.Root>
        <Button size="sm" type="submit" colorPalette="brand">
          {t.saveCap}
        </Button>
        <Button size="sm" variant="ghost" onClick={onCancel}>
          {t.cancel}
        </Button>
      </HStack>
    </form>
  );
}

/** The buttons of one row: what the viewer's role allows on this member, as the server checks it. */
function RowActions({ member, viewer, busy, actions }: { member: TeamMember; viewer: { userId: string; role: TeamRole }; busy: boolean; actions: MemberActions }) {
  const [mode, setMode] = useState<'idle' | 'cap' | 'confirm'>('idle');
  const self = member.user_id === viewer.userId;
  const admin = viewer.role === 'owner' || viewer.role === 'admin';
  const canRemove = member.role !== 'owner' && (self || (admin && (member.role === 'member' || viewer.role === 'owner')));
  if (mode === 'cap') {
    return <CapEditor member={member} onCancel={() => setMode('idle')} onSave={(cap) => (actions.onCap(member.user_id, cap), setMode('idle'))} />;
  }
  if (mode === 'confirm') {
    return (
      <HStack gap="2" wrap="wrap">
        <Text fontSize="sm">{self ? t.leaveConfirm : t.removeConfirm(member.full_name)}</Text>
        <Button size="sm" colorPalette="red" onClick={() => (actions.onRemove(member.user_id), setMode('idle'))} disabled={busy}>
          {t.confirm}
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setMode('idle')}>
          {t.cancel}
        </Button>
      </HStack>
    );
  }
  return (
    <HStack gap="1" wrap={{ base: 'wrap', lg: 'nowrap' }}>
      {admin && (
        <Button size="xs" variant="outline" onClick={() => setMode('cap')} disabled={busy} aria-label={`${t.setCap}: ${member.full_name}`}>
          {t.setCap}
        </Button>
      )}
      {viewer.role === 'owner' && member.role !== 'owner' && (
        <Button
          size="xs"
          variant="outline"
          disabled={busy}
          onClick={() => actions.onRole(member.user_id, member.role === 'admin' ? 'member' : 'admin')}
          aria-label={`${member.role === 'admin' ? t.makeMember : t.makeAdmin}: ${member.full_name}`}
        >
          {member.role === 'admin' ? t.makeMember : t.makeAdmin}
        </Button>
      )}
      {canRemove && (
        <Button size="xs" variant="outline" colorPalette="red" disabled={busy} onClick={() => setMode('confirm')} aria-label={self ? t.leave : `${t.remove}: ${member.full_name}`}>
          {self ? t.leave : t.remove}
        </Button>
      )}
    </HStack>
  );
}

const orDash = (value: number | null) => (value === null ? '—' : formatNumber(value));

/** The members table: name and address, role, joined, last active, this month's queries, today's tokens, cap and actions. */
export function TeamMembers({ members, viewer, busy, actions }: { members: TeamMember[]; viewer: { userId: string; role: TeamRole }; busy: boolean; actions: MemberActions }) {
  return (
    <Table.ScrollArea borderWidth="1px" rounded="md">
      <Table.Root size="sm" stickyHeader>
        <Table.Header>
          <Table.Row>
            {[t.name, t.role, t.joined, t.lastActive, t.monthQueries, t.dayTokens, t.cap, t.actions].map((label) => (
              <Table.ColumnHeader key={label} whiteSpace="nowrap">
                {label}
              </Table.ColumnHeader>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {members.map((member) => (
            <Table.Row key={member.user_id}>
              {/* The address under the name, not a column of its own: on a laptop the row keeps its buttons on one line. */}
              <Table.Cell>
                <Text fontWeight="medium">
                  {member.full_name} {member.user_id === viewer.userId && <Text as="span" color="fg.muted" fontWeight="normal">{t.you}</Text>}
                </Text>
                {member.email && (
                  <Text fontSize="xs" color="fg.muted">
                    {member.email}
                  </Text>
                )}
              </Table.Cell>
              <Table.Cell>{t.roles[member.role]}</Table.Cell>
              <Table.Cell whiteSpace="nowrap">{formatDate(member.joined_at)}</Table.Cell>
              <Table.Cell whiteSpace="nowrap">{member.last_active_at ? formatDate(member.last_active_at) : member.email === null ? '—' : t.never}</Table.Cell>
              <Table.Cell textAlign="end">{orDash(member.month_queries)}</Table.Cell>
              <Table.Cell textAlign="end">{orDash(member.day_tokens)}</Table.Cell>
              <Table.Cell>{member.email === null ? '—' : member.monthly_query_cap === null ? t.noCap : formatNumber(member.monthly_query_cap)}</Table.Cell>
              <Table.Cell>
                <RowActions member={member} viewer={viewer} busy={busy} actions={actions} />
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}

import { Badge, Box, Button, Field, HStack, Input, Stack, Table, Text, useBreakpointValue } from '@chakra-ui/react';
import { Fragment, useState } from 'react';
import { managesTeam } from '../../../contract/roles';
import * as messages from '../../content/messages';
import type { InvitedRole, TeamMember, TeamRole } from '../../../machines/shared/api';
import { formatNumber } from '../../lib/formats';
import { formatDate } from '../../lib/planDisplay';

const t = messages.team;

export interface MemberActions {
  onCap: (userId: string, cap: number | null) => void;
  onRole: (userId: string, role: InvitedRole) => void;
  onTransfer: (userId: string) => void;
  onRemove: (userId: string) => void;
}

type Viewer = { userId: string; role: TeamRole };

/** A cap typed into a field: a whole number from 0, or empty for none; undefined when it is neither. */
export function parseCap(text: string): number | null | undefined {
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
      <HStack align="flex-end" gap="2" wrap="wrap">
        <Field.Root invalid={invalid} maxW="72" flex="1 1 12rem">
          <Field.Label fontSize="xs">{t.capLabel(member.full_name)}</Field.Label>
          <Input size="sm" inputMode="numeric" value={text} onChange={(event) => (setText(event.target.value), setInvalid(false))} autoFocus />
          {invalid ? <Field.ErrorText>{t.capInvalid}</Field.ErrorText> : <Field.HelperText>{t.capHelp}</Field.HelperText>}
        </Field.Root>
        {/* On the field's line, above its helper text. */}
        <HStack gap="2" alignSelf="flex-start" mt="5" flexShrink={0}>
          <Button size="sm" type="submit" colorPalette="brand">
            {t.saveCap}
          </Button>
          <Button size="sm" variant="ghost" onClick={onCancel}>
            {t.cancel}
          </Button>
        </HStack>
      </HStack>
    </form>
  );
}

/** The buttons of one member: what the viewer's role allows on them, as the server checks it. */
function RowActions({ member, viewer, busy, actions, onEditCap }: { member: TeamMember; viewer: Viewer; busy: boolean; actions: MemberActions; onEditCap: () => void }) {
  const self = member.user_id === viewer.userId;
  const owner = viewer.role === 'owner';
  const admin = managesTeam(viewer.role);
  const canRemove = member.role !== 'owner' && (self || (admin && (member.role === 'member' || owner)));
  // The owner caps anyone but themself; an admin caps plain members only (decisions.md, Team money and roles).
  const canCap = owner ? !self : admin && member.role === 'member';
  const named = (action: string) => `${action}: ${member.full_name}`;
  return (
    <HStack gap="1.5" wrap="wrap">
      {canCap && (
        <Button size="xs" variant="outline" onClick={onEditCap} disabled={busy} aria-label={named(t.setCap)}>
          {t.setCap}
        </Button>
      )}
      {owner && member.role !== 'owner' && (
        <>
          <Button size="xs" variant="outline" disabled={busy} onClick={() => actions.onRole(member.user_id, member.role === 'admin' ? 'member' : 'admin')} aria-label={named(member.role === 'admin' ? t.makeMember : t.makeAdmin)}>
            {member.role === 'admin' ? t.makeMember : t.makeAdmin}
          </Button>
          <Button size="xs" variant="outline" disabled={busy} onClick={() => actions.onTransfer(member.user_id)} aria-label={named(t.makeOwner)}>
            {t.makeOwner}
          </Button>
        </>
      )}
      {canRemove && (
        <Button size="xs" variant="outline" colorPalette="red" disabled={busy} onClick={() => actions.onRemove(member.user_id)} aria-label={self ? t.leave : named(t.remove)}>
          {self ? t.leave : t.remove}
        </Button>
      )}
    </HStack>
  );
}

const orDash = (value: number | null) => (value === null ? '—' : formatNumber(value));
const lastActive = (member: TeamMember) => (member.last_active_at ? formatDate(member.last_active_at) : member.email === null ? '—' : t.never);
const capText = (member: TeamMember) => (member.email === null ? '—' : member.monthly_query_cap === null ? t.noCap : formatNumber(member.monthly_query_cap));

/** A member's second factor as a badge; nothing where the viewer may not see it. */
function SecondFactor({ member, required }: { member: TeamMember; required: boolean }) {
  if (member.second_factor === null) return null;
  const off = member.second_factor === 'none';
  return (
    <Badge variant="subtle" colorPalette={off ? (required ? 'orange' : 'gray') : 'green'}>
      {t.secondFactors[member.second_factor]}
    </Badge>
  );
}

function NameAndEmail({ member, viewer }: { member: TeamMember; viewer: Viewer }) {
  return (
    <>
      <Text fontWeight="medium">
        {member.full_name} {member.user_id === viewer.userId && <Text as="span" color="fg.muted" fontWeight="normal">{t.you}</Text>}
      </Text>
      {member.email && (
        <Text fontSize="xs" color="fg.muted" overflowWrap="anywhere">
          {member.email}
        </Text>
      )}
    </>
  );
}

interface MembersProps {
  members: TeamMember[];
  /** While the team requires two-step sign-in, a member without it shows in a warning colour. */
  twoFactorRequired: boolean;
  viewer: Viewer;
  busy: boolean;
  actions: MemberActions;
}

/** On a laptop: a table whose last column wraps its buttons; the cap editor opens on a row of its own under its member, the table's full width. */
function MembersTable({ members, twoFactorRequired, viewer, busy, actions, editing, setEditing }: MembersProps & { editing: string | null; setEditing: (id: string | null) => void }) {
  const columns = [t.name, t.role, t.joined, t.lastActive, t.monthQueries, t.dayTokens, t.cap, t.secondFactor, t.actions];
  return (
    <Box borderWidth="1px" rounded="md">
      <Table.Root size="sm" tableLayout="auto">
        <Table.Header>
          <Table.Row>
            {columns.map((label) => (
              <Table.ColumnHeader key={label}>{label}</Table.ColumnHeader>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {members.map((member) => (
            <Fragment key={member.user_id}>
              <Table.Row>
                <Table.Cell>
                  <NameAndEmail member={member} viewer={viewer} />
                </Table.Cell>
                <Table.Cell>{t.roles[member.role]}</Table.Cell>
                <Table.Cell whiteSpace="nowrap">{formatDate(member.joined_at)}</Table.Cell>
                <Table.Cell whiteSpace="nowrap">{lastActive(member)}</Table.Cell>
                <Table.Cell textAlign="end">{orDash(member.month_queries)}</Table.Cell>
                <Table.Cell textAlign="end">{orDash(member.day_tokens)}</Table.Cell>
                <Table.Cell>{capText(member)}</Table.Cell>
                <Table.Cell>
                  <SecondFactor member={member} required={twoFactorRequired} />
                </Table.Cell>
                <Table.Cell minW="44">
                  <RowActions member={member} viewer={viewer} busy={busy} actions={actions} onEditCap={() => setEditing(member.user_id)} />
                </Table.Cell>
              </Table.Row>
              {editing === member.user_id && (
                <Table.Row>
                  <Table.Cell colSpan={columns.length} bg="bg.subtle">
                    <CapEditor member={member} onCancel={() => setEditing(null)} onSave={(cap) => (actions.onCap(member.user_id, cap), setEditing(null))} />
                  </Table.Cell>
                </Table.Row>
              )}
            </Fragment>
          ))}
        </Table.Body>
      </Table.Root>
    </Box>
  );
}

/** On a phone or a narrow window: one card a member, every fact labelled and every button on the card, nothing to scroll sideways for. */
function MemberCards({ members, twoFactorRequired, viewer, busy, actions, editing, setEditing }: MembersProps & { editing: string | null; setEditing: (id: string | null) => void }) {
  return (
    <Stack as="ul" gap="3" listStyleType="none">
      {members.map((member) => (
        <Stack as="li" key={member.user_id} aria-label={member.full_name} borderWidth="1px" rounded="md" p="4" gap="3">
          <Box>
            <NameAndEmail member={member} viewer={viewer} />
          </Box>
          <Box as="dl" display="grid" gridTemplateColumns="auto 1fr" columnGap="4" rowGap="1" fontSize="sm">
            {(
              [
                [t.role, t.roles[member.role]!],
                [t.joined, formatDate(member.joined_at)],
                [t.lastActive, lastActive(member)],
                [t.monthQueries, orDash(member.month_queries)],
                [t.dayTokens, orDash(member.day_tokens)],
                [t.cap, capText(member)],
              ] as const
            ).map(([label, value]) => (
              <Fragment key={label}>
                <Text as="dt" color="fg.muted">
                  {label}
                </Text>
                <Text as="dd">{value}</Text>
              </Fragment>
            ))}
            {member.second_factor !== null && (
              <>
                <Text as="dt" color="fg.muted">
                  {t.secondFactor}
                </Text>
                <Box as="dd">
                  <SecondFactor member={member} required={twoFactorRequired} />
                </Box>
              </>
            )}
          </Box>
          {editing === member.user_id ? (
            <CapEditor member={member} onCancel={() => setEditing(null)} onSave={(cap) => (actions.onCap(member.user_id, cap), setEditing(null))} />
          ) : (
            <RowActions member={member} viewer={viewer} busy={busy} actions={actions} onEditCap={() => setEditing(member.user_id)} />
          )}
        </Stack>
      ))}
    </Stack>
  );
}

/** The members: name and address, role, joined, last active, this month's queries, today's tokens, cap, two-step sign-in and actions; a table on a laptop, cards below. */
export function TeamMembers(props: MembersProps) {
  const [editing, setEditing] = useState<string | null>(null);
  const wide = useBreakpointValue({ base: false, lg: true }, { ssr: false });
  return wide ? <MembersTable {...props} editing={editing} setEditing={setEditing} /> : <MemberCards {...props} editing={editing} setEditing={setEditing} />;
}

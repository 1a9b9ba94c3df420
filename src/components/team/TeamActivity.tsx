import { Box, Button, Field, HStack, Input, SimpleGrid, Stack, Table, Text } from '@chakra-ui/react';
import { UsageTotals } from '../UsageTotals';
import { lazy, Suspense } from 'react';
import * as messages from '../../content/messages';
import type { AuditEvent, TeamUsage } from '../../../machines/shared/api';
import { DATE_AND_TIME, dateFormat } from '../../lib/formats';

const t = messages.team;
const DailyUsageChart = lazy(() => import('../DailyUsageChart'));

/** Every day of the month (up to today in the current one), with the team's queries and tokens summed over members. */
function daysOf(usage: TeamUsage, today: string) {
  const [year, month] = usage.month.split('-').map(Number) as [number, number];
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const totals = new Map<string, { queries: number; tokens: number }>();
  for (const day of usage.days) {
    const total = totals.get(day.date) ?? { queries: 0, tokens: 0 };
    totals.set(day.date, { queries: total.queries + day.queries, tokens: total.tokens + day.tokens });
  }
  return Array.from({ length }, (_, i) => `${usage.month}-${String(i + 1).padStart(2, '0')}`)
    .filter((date) => date <= today)
    .map((date) => ({ date, ...(totals.get(date) ?? { queries: 0, tokens: 0 }) }));
}

/** Usage for a chosen month: the month field, a chart per day, totals per member and per task, and the CSV. */
export function TeamUsageSection(props: { usage: TeamUsage; month: string; maxMonth: string; loading: boolean; downloading: boolean; onMonth: (month: string) => void; onDownload: () => void }) {
  const { usage, month, maxMonth, loading, downloading } = props;
  return (
    <Stack gap="4" aria-busy={loading}>
      <HStack gap="3" align="flex-end" wrap="wrap">
        <Field.Root maxW="48">
          <Field.Label>{t.month}</Field.Label>
          <Input type="month" value={month} max={maxMonth} onChange={(event) => /^\d{4}-\d{2}$/.test(event.target.value) && props.onMonth(event.target.value)} />
        </Field.Root>
        <Button variant="outline" onClick={props.onDownload} loading={downloading} loadingText={t.downloadBusy}>
          {t.downloadCsv}
        </Button>
      </HStack>
      {usage.days.length === 0 ? (
        <Text color="fg.muted">{t.noUsage}</Text>
      ) : (
        <>
          <Box maxW="3xl">
            <Suspense fallback={<Box h="24" />}>
              <DailyUsageChart days={daysOf(usage, maxMonth === usage.month ? new Date().toISOString().slice(0, 10) : '9999')} title={t.perDayChart(usage.month)} />
            </Suspense>
          </Box>
          <SimpleGrid columns={{ base: 1, md: 2 }} gap="6">
            <UsageTotals caption={t.perMember} headers={[t.name, t.queries, t.tokens]} rows={usage.members.map((m) => ({ key: m.user_id, label: m.full_name, queries: m.queries, tokens: m.tokens }))} />
            <UsageTotals caption={t.perTask} headers={[t.what, t.queries, t.tokens]} rows={usage.by_task.map((row) => ({ key: row.task, label: row.task, queries: row.queries, tokens: row.tokens }))} />
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}

/** One event as a sentence: "Ada invited bob@example.com (member)". */
function describe(event: AuditEvent): string {
  const verb = t.actionsText[event.action] ?? event.action;
  const target = event.target && event.action !== 'member.joined' && event.action !== 'member.left' ? ` ${event.target.name}` : '';
  const detail = event.target?.detail ? ` (${event.target.detail})` : '';
  return `${verb}${target}${detail}`;
}

export function AuditLog({ events, hasOlder, loading, onOlder }: { events: AuditEvent[]; hasOlder: boolean; loading: boolean; onOlder: () => void }) {
  return (
    <Stack gap="3">
      {/* Scrolls sideways on a phone, with nothing focusable in it: keyboard users scroll it once it has the focus. */}
      <Table.ScrollArea borderWidth="1px" rounded="md" tabIndex={0} role="group" aria-label={t.auditHeading}>
        <Table.Root size="sm">
          <Table.Header>
            <Table.Row>
              {[t.when, t.who, t.what, t.from].map((label) => (
                <Table.ColumnHeader key={label}>{label}</Table.ColumnHeader>
              ))}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {events.map((event) => (
              <Table.Row key={event.id}>
                <Table.Cell whiteSpace="nowrap">{dateFormat(DATE_AND_TIME).format(new Date(event.at))}</Table.Cell>
                <Table.Cell>{event.actor?.name ?? t.system}</Table.Cell>
                <Table.Cell>{describe(event)}</Table.Cell>
                <Table.Cell>{event.ip ?? '—'}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </Table.ScrollArea>
      {hasOlder && (
        <Button alignSelf="flex-start" variant="outline" size="sm" onClick={onOlder} loading={loading} loadingText={t.olderBusy}>
          {t.olderEvents}
        </Button>
      )}
    </Stack>
  );
}

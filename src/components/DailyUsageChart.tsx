import { Box, HStack, Text } from '@chakra-ui/react';
import { useId } from 'react';
import * as messages from '../content/messages';
import type { DailyUsage } from '../../machines/shared/api';
import { formatNumber } from '../lib/planDisplay';

const t = messages.dashboard;

const WIDTH = 300;
const HEIGHT = 80;
const GAP = 2;

/** A UTC calendar day ("2026-11-23") in the user's locale, e.g. "Nov 23". */
function formatDay(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/**
 * Daily queries as bars, one per UTC day, oldest on the left. A hand-made SVG rather than a chart
 * library keeps this chunk a few kilobytes; its name and summary are the SVG's title and desc, and
 * each bar's title gives its day and count.
 */
export default function DailyUsageChart({ days, title = t.dailyTitle }: { days: readonly DailyUsage[]; title?: string }) {
  const id = useId();
  const total = days.reduce((sum, day) => sum + day.queries, 0);
  const busiest = days.reduce<DailyUsage | null>((top, day) => (day.queries > (top?.queries ?? 0) ? day : top), null);
  const peak = Math.max(1, busiest?.queries ?? 0);
  const slot = WIDTH / Math.max(1, days.length);
  const summary = t.dailySummary(
    formatNumber(total),
    busiest ? t.dailyBar(formatDay(busiest.date), formatNumber(busiest.queries)) : null,
  );
  return (
    <Box>
      <Box asChild w="full" h="24" color="brand.solid">
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`}>
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{summary}</desc>
          <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} stroke="currentColor" strokeOpacity="0.25" />
          {days.map((day, i) => {
            // A day with queries keeps at least a sliver, so it never reads as an empty day.
            const height = day.queries === 0 ? 0 : Math.max(2, (day.queries / peak) * (HEIGHT - 4));
            return (
              <rect key={day.date} x={i * slot + GAP / 2} y={HEIGHT - height} width={Math.max(1, slot - GAP)} height={height} rx="1" fill="currentColor">
                <title>{t.dailyBar(formatDay(day.date), formatNumber(day.queries))}</title>
              </rect>
            );
          })}
        </svg>
      </Box>
      {days.length > 0 && (
        <HStack justify="space-between" fontSize="xs" color="fg.muted" mt="1" aria-hidden="true">
          <Text>{formatDay(days[0]!.date)}</Text>
          <Text>{formatDay(days[days.length - 1]!.date)}</Text>
        </HStack>
      )}
    </Box>
  );
}

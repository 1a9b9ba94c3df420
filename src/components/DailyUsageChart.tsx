import { Box, Flex, HStack, Stack, Text } from '@chakra-ui/react';
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import * as messages from '../content/messages';
import type { DailyUsage } from '../../machines/shared/api';
import { dateFormat, formatNumber } from '../lib/formats';

const t = messages.dashboard;

const WIDTH = 300;
const HEIGHT = 80;
const GAP = 2;

/** A day as the chart reads it; /usage's days also carry their mean processing time. */
type Day = DailyUsage & { avg_processing_ms?: number };

/** The words of the detailed chart (axes, legend, a day's values), from the page that shows it. */
export interface ChartWords {
  legend: string;
  xAxis: string;
  yAxis: string;
  help: string;
  detail: (day: Day, date: string) => string;
}

/** A UTC calendar day ("2026-11-23") in the user's locale, e.g. "Nov 23". */
export function formatDay(date: string, year = false): string {
  return dateFormat(year ? { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' } : { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
}

/** The axis' top: the peak rounded up to 1, 2 or 5 times a power of ten, so its ticks read as round numbers. */
function axisMax(peak: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, peak)));
  return [1, 2, 5, 10].map((step) => step * power).find((value) => value >= peak)!;
}

/** The bars, oldest on the left; a day with queries keeps at least a sliver, so it never reads as an empty day. */
function Bars({ days, top, active }: { days: readonly Day[]; top: number; active?: number | null }) {
  const slot = WIDTH / Math.max(1, days.length);
  return days.map((day, i) => {
    const height = day.queries === 0 ? 0 : Math.max(2, (day.queries / top) * (active === undefined ? HEIGHT - 4 : HEIGHT));
    return (
      <rect
        key={day.date}
        x={i * slot + GAP / 2}
        y={HEIGHT - height}
        width={Math.max(1, slot - GAP)}
        height={height}
        rx="1"
        fill="currentColor"
        fillOpacity={active === undefined || active === null || active === i ? 1 : 0.55}
        pointerEvents="none"
      >
        {active === undefined && <title>{t.dailyBar(formatDay(day.date), formatNumber(day.queries))}</title>}
      </rect>
    );
  });
}

/**
 * Daily queries as bars, one per UTC day, oldest on the left. A hand-made SVG rather than a chart
 * library keeps this chunk a few kilobytes; its name and summary are the SVG's title and desc.
 * Compact (the dashboard, the team page), each bar's title gives its day and count. Given `words`
 * (/usage), it has labelled axes, a legend, and a day's values on hover and on keyboard focus: the
 * days are one tab stop, the arrow keys (Home, End) move between them, and the focused day is named
 * by its values.
 */
export default function DailyUsageChart({ days, title = t.dailyTitle, summary, words }: { days: readonly Day[]; title?: string; summary?: string; words?: ChartWords }) {
  const id = useId();
  const total = days.reduce((sum, day) => sum + day.queries, 0);
  const busiest = days.reduce<Day | null>((top, day) => (day.queries > (top?.queries ?? 0) ? day : top), null);
  const description = summary ?? t.dailySummary(formatNumber(total), busiest ? t.dailyBar(formatDay(busiest.date), formatNumber(busiest.queries)) : null);
  const labelled = { role: 'img', 'aria-labelledby': `${id}-title`, 'aria-describedby': `${id}-desc` } as const;
  const heading = (
    <>
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
    </>
  );
  if (!words) {
    return (
      <Box>
        <Box asChild w="full" h="24" color="brand.solid">
          <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" {...labelled}>
            {heading}
            <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} stroke="currentColor" strokeOpacity="0.25" />
            <Bars days={days} top={Math.max(1, busiest?.queries ?? 0)} />
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
  return <DetailedChart days={days} top={axisMax(busiest?.queries ?? 0)} heading={heading} labelled={labelled} words={words} />;
}

function DetailedChart(props: { days: readonly Day[]; top: number; heading: React.ReactNode; labelled: Record<string, string>; words: ChartWords }) {
  const { days, top, words } = props;
  const [active, setActive] = useState<number | null>(null);
  const [focusIndex, setFocusIndex] = useState(days.length - 1);
  const slots = useRef<Array<SVGRectElement | null>>([]);
  const slot = WIDTH / Math.max(1, days.length);
  const ticks = top % 2 === 0 ? [top, top / 2, 0] : [top, 0];
  const detail = (i: number) => words.detail(days[i]!, formatDay(days[i]!.date, true));
  const focus = (i: number) => {
    const next = Math.min(days.length - 1, Math.max(0, i));
    setFocusIndex(next);
    setActive(next);
    slots.current[next]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowLeft: focusIndex - 1, ArrowRight: focusIndex + 1, Home: 0, End: days.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    focus(moves[event.key]!);
  };
  const middle = Math.floor((days.length - 1) / 2);
  const shown = active === null ? null : days[active];
  return (
    <Stack gap="2">
      <HStack justify="space-between" wrap="wrap" gap="2" fontSize="sm">
        <HStack gap="2">
          <Box w="3" h="3" rounded="sm" bg="brand.solid" aria-hidden="true" />
          <Text>{words.legend}</Text>
        </HStack>
        <Text color="fg.muted" fontSize="xs">
          {words.help}
        </Text>
      </HStack>
      <Text fontSize="xs" color="fg.muted" aria-hidden="true">
        {words.yAxis}
      </Text>
      <Flex gap="2" pt="2">
        {/* The y axis' ticks, each level with its grid line. */}
        <Box position="relative" h="48" fontSize="xs" color="fg.muted" textAlign="end" aria-hidden="true" flexShrink={0} minW="6">
          {ticks.map((tick) => (
            <Text key={tick} position="absolute" insetEnd="0" top={`${(1 - tick / top) * 100}%`} transform="translateY(-50%)" lineHeight="1">
              {formatNumber(tick)}
            </Text>
          ))}
        </Box>
        <Box position="relative" flex="1" minW="0">
          <Box asChild w="full" h="48" color="brand.solid" display="block" overflow="visible">
            <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" {...props.labelled} onKeyDown={onKeyDown} onMouseLeave={() => setActive(null)}>
              {props.heading}
              {ticks.map((tick) => (
                <line key={tick} x1="0" x2={WIDTH} y1={HEIGHT - (tick / top) * HEIGHT} y2={HEIGHT - (tick / top) * HEIGHT} stroke="currentColor" strokeOpacity={tick === 0 ? 0.4 : 0.12} vectorEffect="non-scaling-stroke" />
              ))}
              {active !== null && <rect x={active * slot} y="0" width={slot} height={HEIGHT} fill="currentColor" fillOpacity="0.1" pointerEvents="none" />}
              <Bars days={days} top={top} active={active} />
              {days.map((day, i) => (
                <rect
                  key={day.date}
                  ref={(element) => {
                    slots.current[i] = element;
                  }}
                  x={i * slot}
                  y="0"
                  width={slot}
                  height={HEIGHT}
                  fill="transparent"
                  role="img"
                  aria-label={detail(i)}
                  tabIndex={i === focusIndex ? 0 : -1}
                  onMouseEnter={() => setActive(i)}
                  onFocus={() => {
                    setFocusIndex(i);
                    setActive(i);
                  }}
                  onBlur={() => setActive(null)}
                />
              ))}
            </svg>
          </Box>
          {shown && (
            // The values of the day under the pointer or the focus; the focused day's own name says them to a screen reader.
            <Box
              aria-hidden="true"
              position="absolute"
              bottom="100%"
              mb="1"
              left={`${((active! + 0.5) / days.length) * 100}%`}
              transform={`translateX(-${((active! + 0.5) / days.length) * 100}%)`}
              bg="bg.panel"
              borderWidth="1px"
              rounded="md"
              px="2"
              py="1"
              fontSize="xs"
              boxShadow="md"
              whiteSpace="nowrap"
              pointerEvents="none"
              zIndex="1"
            >
              {detail(active!)}
            </Box>
          )}
          <HStack justify="space-between" fontSize="xs" color="fg.muted" mt="1" aria-hidden="true">
            {[0, middle, days.length - 1]
              .filter((i, n, all) => days[i] && all.indexOf(i) === n)
              .map((i) => (
                <Text key={i}>{formatDay(days[i]!.date)}</Text>
              ))}
          </HStack>
          <Text fontSize="xs" color="fg.muted" textAlign="center" aria-hidden="true">
            {words.xAxis}
          </Text>
        </Box>
      </Flex>
    </Stack>
  );
}

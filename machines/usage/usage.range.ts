import { LOAD_PATHS } from '../shared/loadPaths';
import { sentence, type Message } from '../shared/messages';

/**
 * The ranges of days the /usage page offers (decisions.md, "Professional's promises": this month,
 * last month, last 30 / 90 days, custom) and the rules a custom range is checked against before it
 * is asked for: the server's own (server/domain/analytics.ts, `checkRange`), but for the retention
 * horizon, which only the server knows (its 400 then shows as the page's failure, in its words).
 */

export type RangePreset = 'thisMonth' | 'lastMonth' | 'last30' | 'last90';
export type RangeChoice = RangePreset | 'custom';
export const RANGE_PRESETS: readonly RangePreset[] = ['thisMonth', 'lastMonth', 'last30', 'last90'];

/** Two UTC days, `YYYY-MM-DD`, both included. */
export interface DayRange {
  from: string;
  to: string;
}

/** The range the page opens with. */
export const FIRST_PRESET: RangePreset = 'last30';

/** The call for a range, as the chart asks it and the page's first-calls script sends it (src/firstCalls.ts). */
export const analyticsPath = (range: DayRange): string => `${LOAD_PATHS.analytics}?${new URLSearchParams({ from: range.from, to: range.to })}`;

export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Midnight UTC of a `YYYY-MM-DD` that names a real day, else undefined. */
function dayStart(text: string): number | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const at = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return dayOf(at) === text ? at : undefined;
}

/** The days of a preset, seen on `today` (a UTC day). */
export function presetRange(preset: RangePreset, today: string): DayRange {
  const now = dayStart(today)!;
  const date = new Date(now);
  const [year, month] = [date.getUTCFullYear(), date.getUTCMonth()];
  switch (preset) {
    case 'thisMonth':
      return { from: dayOf(Date.UTC(year, month, 1)), to: today };
    case 'lastMonth':
      return { from: dayOf(Date.UTC(year, month - 1, 1)), to: dayOf(Date.UTC(year, month, 0)) };
    case 'last30':
      return { from: dayOf(now - 29 * DAY_MS), to: today };
    case 'last90':
      return { from: dayOf(now - 89 * DAY_MS), to: today };
  }
}

/** What is wrong with a custom range, field by field (the catalogue's sentences, `usage.rangeErrors`); empty when nothing. */
export type RangeErrors = Partial<Record<keyof DayRange, Message>>;

export function checkRange(range: DayRange, today: string): RangeErrors {
  const from = dayStart(range.from);
  const to = dayStart(range.to);
  const errors: RangeErrors = {};
  if (from === undefined) errors.from = 'usage.rangeErrors.fromRequired';
  if (to === undefined) errors.to = 'usage.rangeErrors.toRequired';
  else if (range.to > today) errors.to = 'usage.rangeErrors.toInFuture';
  if (from === undefined || to === undefined || errors.to) return errors;
  if (from > to) return { from: 'usage.rangeErrors.fromAfterTo' };
  const days = Math.round((to - from) / DAY_MS) + 1;
  if (days > MAX_RANGE_DAYS) return { to: sentence('usage.rangeErrors.tooLong', days, MAX_RANGE_DAYS) };
  return errors;
}

/** Today as a UTC day: the days the server counts in. */
export const utcToday = (now = Date.now()) => dayOf(now);

/** This month as a UTC month, `YYYY-MM`: the team page's usage month to begin with. */
export const utcThisMonth = (now = Date.now()) => utcToday(now).slice(0, 7);

/**
 * What the user sees in a state of a chart, written down once for every runner that replays the
 * chart's paths (Testing Library in jsdom, Playwright in Chromium): elements found by role and
 * accessible name, by label, or by text from the message catalogue — never by markup or CSS, so a
 * change of layout does not change the expectations.
 */

/** The landmark or named region a sight is looked for in (the whole page when omitted). */
export interface Area {
  role: 'banner' | 'region' | 'article' | 'navigation' | 'main' | 'listitem' | 'alertdialog';
  name?: string;
}

export type SightRole = 'button' | 'link' | 'heading' | 'status' | 'textbox' | 'banner' | 'region' | 'article' | 'alert' | 'alertdialog' | 'listitem' | 'img' | 'table';

interface Common {
  in?: Area;
  /** The sight must not be there. */
  absent?: true;
}

/** An element by role and accessible name; the optional states narrow which ones count. */
export interface RoleSight extends Common {
  role: SightRole;
  name?: string | RegExp;
  level?: number;
  disabled?: boolean;
  /** aria-busy, as a region being refreshed announces it. */
  busy?: boolean;
}

/** Text shown on its own (a toast, a message, a badge); `count` when it must show that many times. */
export interface TextSight extends Common {
  text: string | RegExp;
  count?: number;
}

/** A labelled control (or element), with the value it holds and whether it has the focus. */
export interface LabelSight extends Common {
  label: string | RegExp;
  value?: string;
  focused?: true;
}

export type Sight = RoleSight | TextSight | LabelSight;

/** One line per sight, for the message of a failed check. */
export function describeSight(sight: Sight): string {
  const what =
    'role' in sight
      ? `${sight.role}${sight.name !== undefined ? ` "${String(sight.name)}"` : ''}${sight.level ? ` level ${sight.level}` : ''}${
          sight.disabled !== undefined ? (sight.disabled ? ' (disabled)' : ' (enabled)') : ''
        }${sight.busy !== undefined ? ` aria-busy=${sight.busy}` : ''}`
      : 'text' in sight
        ? `text "${String(sight.text)}"${sight.count !== undefined ? ` ×${sight.count}` : ''}`
        : `field "${String(sight.label)}"${sight.value !== undefined ? ` = ${JSON.stringify(sight.value)}` : ''}${sight.focused ? ' (focused)' : ''}`;
  const where = sight.in ? ` in ${sight.in.role}${sight.in.name ? ` "${sight.in.name}"` : ''}` : '';
  return `${sight.absent ? 'no ' : ''}${what}${where}`;
}

/** A label's text as a pattern that also accepts the required-field marker after it. */
export const labelled = (label: string) => new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

import { pleaseWait } from './wait';

/** The /usage page (decisions.md, "Professional's promises": advanced analytics and the usage CSV). */
export const usage = {
  title: 'Usage',
  lead: 'Your queries, tokens and processing times, by day, by task and by credential.',
  loadFailed: 'Your usage could not be loaded.',
  retry: 'Retry',
  reloading: 'Loading the new range…',

  rangeLegend: 'Range',
  presets: {
    thisMonth: 'This month',
    lastMonth: 'Last month',
    last30: 'Last 30 days',
    last90: 'Last 90 days',
    custom: 'Custom',
  },
  from: 'From',
  to: 'To',
  showRange: 'Show',
  /** The range shown, under the picker: "Nov 1, 2026 – Nov 26, 2026 (UTC days)". */
  rangeShown: (from: string, to: string) => `${from} – ${to} (UTC days)`,
  rangeErrors: {
    fromRequired: 'Enter the first day, for example 2026-11-01.',
    toRequired: 'Enter the last day, for example 2026-11-30.',
    fromAfterTo: 'The first day must not be after the last day.',
    toInFuture: 'The last day must not be after today.',
    tooLong: (days: number, max: number) => `The range is ${days} days long; it may be at most ${max}.`,
  },

  emptyTitle: 'No usage in this range',
  emptyText: 'No query was made on these days. Choose another range, or ask the assistant something in your spreadsheet.',

  totalsHeading: 'Totals',
  queries: 'Queries',
  tokens: 'Tokens',
  p50: 'Median processing time (p50)',
  p95: '95th percentile processing time (p95)',
  milliseconds: (ms: string) => `${ms} ms`,

  chartHeading: 'Daily usage',
  chartTitle: (from: string, to: string) => `Queries per day, ${from} to ${to}`,
  chartSummary: (queries: string, tokens: string) => `${queries} queries and ${tokens} tokens in this range.`,
  chartLegend: 'Queries per day',
  xAxis: 'Day (UTC)',
  yAxis: 'Queries',
  chartHelp: 'Hover over a bar, or focus the chart and use the arrow keys, to read a day.',
  /** A bar's values, on hover and on keyboard focus. */
  dayDetail: (date: string, queries: string, tokens: string, avg: string | null) =>
    `${date}: ${queries} queries, ${tokens} tokens${avg ? `, average ${avg} ms` : ''}`,

  byTaskHeading: 'By task',
  byCredentialHeading: 'By credential',
  task: 'Task',
  credential: 'Credential',
  tasks: {
    analyze: 'Analyse data',
    formula: 'Create a formula',
    explain: 'Explain a formula',
    guide: 'Step-by-step guide',
    ask: 'Question',
  } as Record<string, string>,
  credentialKinds: {
    web: 'Web app',
    addon: 'Add-on',
    api_key: 'API key',
  } as Record<string, string>,

  downloadCsv: 'Download CSV',
  downloadCsvBusy: 'Preparing CSV…',
  downloadCsvNote: 'One row per query of the range: time, task, credential, tokens and processing time. Never a prompt, data or answer.',
  downloadFailed: 'The download failed',

  upgradeHeading: 'Usage analytics come with Professional',
  upgradeLead: (plan: string) => `Your plan does not include usage analytics. ${plan} adds:`,
  upgradePoints: [
    'A chart of your queries per day, for the range you choose',
    'Queries and tokens by task and by credential (web app, add-on, API keys)',
    'Median and 95th percentile processing times',
    'A CSV of every query, to open in your spreadsheet',
    'Custom functions you can call from a cell',
  ],
  upgradeAction: (plan: string) => `Upgrade to ${plan}`,

  exportHeading: 'Your data',
  exportText: 'Download everything we hold about your account as a JSON file: profile, sessions, API keys (without secrets), subscription, billing, team and usage by day. Available on every plan, once an hour.',
  exportAction: 'Download my data',
  exportBusy: 'Preparing your data…',
  exportDone: 'Your data was downloaded.',
  exportThrottled: (seconds: number) => `You can download your data once an hour. ${pleaseWait(seconds)}`,
  exportFailed: 'Your data could not be downloaded.',
} as const;

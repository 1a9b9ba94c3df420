/**
 * Mermaid state diagrams generated from the charts, for developers who read a flow before they
 * change it: `npm run charts` writes `docs/charts/<chart>.md`, and a test fails when a committed
 * diagram no longer matches its chart.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AnyStateMachine, AnyStateNode } from 'xstate';

type Transition = AnyStateNode['transitions'] extends Map<string, Array<infer T>> ? T : never;

export interface ChartSource {
  /** The chart's folder under machines/, e.g. `auth`. */
  name: string;
  /** Path of the chart's file from the repository root. */
  file: string;
  machine: AnyStateMachine;
}

const ROOT = path.resolve(__dirname, '..');
export const CHARTS_DIR = path.join(ROOT, 'docs', 'charts');

/** Every chart: each exported state machine of `machines/<name>/<name>.machine.ts`. */
export async function loadCharts(): Promise<ChartSource[]> {
  const charts: ChartSource[] = [];
  const folders = fs
    .readdirSync(__dirname, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const name of folders) {
    const file = path.join(__dirname, name, `${name}.machine.ts`);
    if (!fs.existsSync(file)) continue;
    const module = (await import(file)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (isMachine(value)) charts.push({ name, file: path.relative(ROOT, file), machine: value });
    }
  }
  return charts;
}

function isMachine(value: unknown): value is AnyStateMachine {
  return typeof value === 'object' && value !== null && 'root' in value && 'config' in value && 'transition' in value;
}

/** A Mermaid id for a state: its full path, with characters Mermaid would misread replaced. */
const nodeId = (node: AnyStateNode) => node.id.replace(/[^A-Za-z0-9_]/g, '_');

/** A guard as written in the chart: its name, or `not(name)` / `and(a, b)` for the combinators. */
function guardName(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const combined = (guard as { guards?: unknown[] }).guards;
    return combined ? `${guard.name}(${combined.map(guardName).join(', ')})` : guard.name || 'inline';
  }
  if (guard && typeof guard === 'object' && 'type' in guard) return String((guard as { type: unknown }).type);
  return 'inline';
}

/** The event as a reader names it: delays, actor completions and eventless transitions spelled out. */
function eventLabel(eventType: string): string {
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after) return `after ${after[1]}`;
  const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(eventType);
  if (actor) return `${actor[1] === 'done' ? 'done' : 'error'}: ${actor[2]}`;
  return eventType === '' ? 'always' : eventType;
}

function transitionLines(node: AnyStateNode, indent: string): string[] {
  const lines: string[] = [];
  const all: Transition[] = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
  for (const transition of all) {
    const label = [eventLabel(transition.eventType), transition.guard ? `[${guardName(transition.guard)}]` : '']
      .filter(Boolean)
      .join(' ');
    // A transition without a target stays in its state (it only runs actions): drawn as a loop.
    const targets = transition.target?.length ? transition.target : [node];
    for (const target of targets) lines.push(`${indent}${nodeId(node)} --> ${nodeId(target)}: ${label}`);
  }
  return lines;
}

function stateBlock(node: AnyStateNode, indent: string): string[] {
  const id = nodeId(node);
  const children = Object.values(node.states) as AnyStateNode[];
  const lines = [`${indent}state "${node.key}" as ${id}`];
  if (children.length === 0) {
    if (node.type === 'final') lines.push(`${indent}${id} --> [*]`);
    return lines;
  }
  lines.push(`${indent}state ${id} {`);
  const inner = `${indent}  `;
  children.forEach((child, index) => {
    // Regions of a parallel state are drawn side by side, separated by `--`.
    if (node.type === 'parallel' && index > 0) lines.push(`${inner}--`);
    lines.push(...stateBlock(child, inner));
  });
  if (node.type === 'compound') {
    for (const target of node.initial.target) lines.push(`${inner}[*] --> ${nodeId(target)}`);
  }
  lines.push(`${indent}}`);
  return lines;
}

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...(Object.values(node.states) as AnyStateNode[]).flatMap(allNodes)];
}

/** The chart as a Mermaid `stateDiagram-v2`: nested and parallel states, every transition with its event and guard. */
export function toMermaid(machine: AnyStateMachine): string {
  const root = machine.root;
  const lines = ['stateDiagram-v2'];
  for (const child of Object.values(root.states) as AnyStateNode[]) lines.push(...stateBlock(child, '  '));
  if (root.type === 'compound') for (const target of root.initial.target) lines.push(`  [*] --> ${nodeId(target)}`);
  for (const node of allNodes(root)) {
    // The root's own transitions apply in every state; they are listed under the diagram instead.
    if (node !== root) lines.push(...transitionLines(node, '  '));
  }
  return lines.join('\n');
}

/** The config as plain data: guards become their names, other functions (inline actions) are left out. */
function plain(value: unknown, key = ''): unknown {
  if (typeof value === 'function') return key === 'guard' ? guardName(value) : undefined;
  if (Array.isArray(value)) return value.map((item) => plain(item)).filter((item) => item !== undefined);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, plain(v, k)] as const);
    return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
  }
  return value;
}

/** The chart's config as code the Stately editor's "Import from code" accepts. */
function importableCode(machine: AnyStateMachine): string {
  return `createMachine(${JSON.stringify(plain(machine.config), null, 2)})`;
}

function rootTransitions(machine: AnyStateMachine): string[] {
  const root = machine.root;
  return [...root.transitions.values()].flat().map((t) => {
    const target = t.target?.map((n) => n.key).join(', ') ?? 'stays';
    return `- \`${eventLabel(t.eventType)}\`${t.guard ? ` [${guardName(t.guard)}]` : ''} → ${target}`;
  });
}

/** The whole `docs/charts/<chart>.md` page of one chart. */
export function chartDocument(chart: ChartSource): string {
  const { machine } = chart;
  const everywhere = rootTransitions(machine);
  const description = machine.root.description ?? machine.config.description;
  return [
    `# The \`${machine.id}\` chart`,
    '',
    `Generated by \`npm run charts\` from [\`${chart.file}\`](../../${chart.file}); do not edit by hand.`,
    ...(description ? ['', description] : []),
    '',
    'Transitions read `event [guard]`; `done: x` and `error: x` are the outcomes of the invoked actor `x`,',
    '`after x` the named delay `x`, `always` an eventless transition.',
    '',
    '```mermaid',
    toMermaid(machine),
    '```',
    ...(everywhere.length ? ['', 'In every state:', '', ...everywhere] : []),
    '',
    '## Open it in the Stately editor',
    '',
    'Open <https://stately.ai/editor>, create a machine, choose **Code → Import** and paste the definition',
    'below; or, in VS Code, run **Stately: Open Visual Editor** on the chart file with the Stately extension.',
    '',
    '<details><summary>Definition to import</summary>',
    '',
    '```js',
    importableCode(machine),
    '```',
    '',
    '</details>',
    '',
  ].join('\n');
}

export function chartPath(chart: ChartSource): string {
  return path.join(CHARTS_DIR, `${chart.name}.md`);
}

async function main(): Promise<void> {
  fs.mkdirSync(CHARTS_DIR, { recursive: true });
  const charts = await loadCharts();
  const expected = new Set(charts.map(chartPath));
  for (const stale of fs.readdirSync(CHARTS_DIR).map((f) => path.join(CHARTS_DIR, f))) {
    if (!expected.has(stale)) fs.rmSync(stale);
  }
  for (const chart of charts) {
    fs.writeFileSync(chartPath(chart), chartDocument(chart));
    process.stdout.write(`wrote ${path.relative(ROOT, chartPath(chart))}\n`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

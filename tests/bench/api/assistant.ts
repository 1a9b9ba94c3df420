import { offlineAnswer } from '../../../server/ai/offlineAnswer';
import type { AiRequest, Cell } from '../../../server/ai/provider';
import { log, median, ROUNDS } from './options';
import { table } from './report';

/**
 * The offline assistant's answers on a 10,000-cell selection (100 columns × 100 rows with a header
 * row): what `explain` and `formula` cost, as a ratio to `analyze` on the same range, measured in
 * the same run in interleaved rounds. Each answer is worked out in this process, as the offline
 * provider does inside a query, so the figures are the answer's own cost, without the HTTP and
 * database work every query shares.
 */

const REGIONS = ['North', 'South', 'East', 'West'];

/** 100 columns: Region, then Units, Price, Revenue and 96 more numeric columns. */
function sheet(): Cell[][] {
  const names = ['Region', 'Units', 'Price', 'Revenue', ...Array.from({ length: 96 }, (_, i) => `Metric ${i + 1}`)];
  const rows = Array.from({ length: 99 }, (_, r) => [REGIONS[r % 4]!, ...Array.from({ length: 99 }, (_, c) => ((r * 37 + c * 11) % 500) + c)]);
  return [names, ...rows];
}

const TASKS: Array<{ name: string; request: (data: Cell[][]) => AiRequest }> = [
  { name: 'analyze', request: (data) => ({ task: 'analyze', prompt: 'Describe the data', data }) },
  // A formula that reads every cell of the range, explained step by step with each step's value.
  { name: 'explain', request: (data) => ({ task: 'explain', prompt: 'Explain =ROUND(SUMIF(A2:A100,"North",D2:D100)/SUM(B2:CV100),4)', data }) },
  // A request understood over the headers, its formula built and evaluated.
  { name: 'formula', request: (data) => ({ task: 'formula', prompt: 'What percentage of total Revenue comes from North?', data }) },
];

/** Milliseconds of one answer, the median of `repeats` answers (each to a fresh request object). */
function time(request: () => AiRequest, repeats: number): number {
  const took: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    const answer = offlineAnswer(request());
    took.push(performance.now() - start);
    if (answer.text.length === 0) throw new Error('empty answer');
  }
  return median(took);
}

export function benchAssistant(): void {
  const data = sheet();
  const cells = data.reduce((n, row) => n + row.length, 0);
  log(`assistant: ${cells.toLocaleString('en')} cells, ${ROUNDS} rounds…`);
  // Warm the engine (its parser is made once per process) and the JIT.
  for (const task of TASKS) time(() => task.request(data), 3);
  const samples = new Map(TASKS.map((task) => [task.name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? TASKS : [...TASKS].reverse();
    for (const task of order) samples.get(task.name)!.push(time(() => task.request(data), 10));
  }
  const ms = (name: string) => median(samples.get(name)!);
  const analyze = ms('analyze');
  console.log(`\nThe offline assistant on a ${cells.toLocaleString('en')}-cell range (median ms of an answer; ratio to analyze on the same range, this run):\n`);
  table(
    ['task', 'ms', 'ratio to analyze'],
    TASKS.map(({ name }) => [name, ms(name).toFixed(2), (ms(name) / analyze).toFixed(2)]),
  );
}

import fs from 'node:fs';
import type { AnyStateNode } from 'xstate';
import { CHARTS_DIR, chartDocument, chartPath, loadCharts, toMermaid, type ChartSource } from '../../machines/diagrams';

let charts: ChartSource[] = [];
beforeAll(async () => {
  charts = await loadCharts();
});

const nodesOf = (node: AnyStateNode): AnyStateNode[] => [node, ...Object.values(node.states).flatMap((n) => nodesOf(n as AnyStateNode))];

describe('generated chart diagrams', () => {
  it('finds every chart folder under machines/', () => {
    const names = charts.map((chart) => chart.name);
    expect(names).toEqual(expect.arrayContaining(['auth', 'supportForm']));
    expect(new Set(names).size).toBe(names.length);
  });

  it('draws every state and every event of each chart', () => {
    for (const { machine } of charts) {
      const diagram = toMermaid(machine);
      for (const node of nodesOf(machine.root).slice(1)) {
        expect(diagram).toContain(`state "${node.key}" as ${node.id.replace(/[^A-Za-z0-9_]/g, '_')}`);
      }
      for (const event of machine.root.events.filter((e) => !e.startsWith('xstate.'))) {
        const onRoot = machine.root.transitions.has(event);
        if (!onRoot) expect(diagram).toContain(`: ${event}`);
      }
    }
  });

  it('has a committed docs/charts/<chart>.md equal to what the chart generates (run `npm run charts` after changing a chart)', () => {
    const committed = fs.readdirSync(CHARTS_DIR).sort();
    expect(committed).toEqual(charts.map((chart) => `${chart.name}.md`).sort());
    for (const chart of charts) {
      expect(fs.readFileSync(chartPath(chart), 'utf8')).toBe(chartDocument(chart));
    }
  });
});

import path from 'node:path';
import { ESLint } from 'eslint';

/**
 * The dependency rules of docs/architecture.md, as `npm run lint` enforces them: for each folder a
 * forbidden import is reported and an allowed one is not. The code is linted as if it were a file
 * of that folder, through the project's own eslint.config.js.
 */
// The config is handed in rather than found: ESLint loads a config file with a dynamic import,
// which jest's module runtime does not allow.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require('../../eslint.config.js') as ESLint.Options['overrideConfig'];
const eslint = new ESLint({ cwd: path.resolve(__dirname, '../..'), overrideConfigFile: true, overrideConfig: config });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = value;\n`, { filePath: path.resolve(__dirname, '../..', file) });
  return result!.messages.filter((m) => m.ruleId === 'import-x/no-restricted-paths' || m.ruleId === 'no-restricted-imports' || m.ruleId === 'import-x/no-cycle').map((m) => `${m.ruleId}: ${m.message}`);
}

const cases: Array<{ file: string; forbidden: string; allowed: string }> = [
  {
    file: 'contract/example.ts',
    forbidden: "import { loading as value } from '../src/content/messages';",
    allowed: "import { PLANS as value } from './plans';",
  },
  {
    file: 'server/domain/example.ts',
    forbidden: "import { PLAN_OFFERS as value } from '../../src/content/plans';",
    allowed: "import { PLANS as value } from '../../contract/plans';",
  },
  {
    file: 'machines/example/example.actors.ts',
    forbidden: "import { AuthProvider as value } from '../../src/app/auth';",
    allowed: "import { authApi as value } from '../shared/api';",
  },
  {
    // A chart words nothing itself: not even the catalogue or src/lib (views → charts → contract).
    file: 'machines/example/example.machine.ts',
    forbidden: "import { auth as value } from '../../src/content/messages';",
    allowed: "import { PLANS as value } from '../../contract/plans';",
  },
  {
    file: 'machines/example/example.machine.ts',
    forbidden: "import { teamMachine as value } from '../team/team.machine';",
    allowed: "import { reportFailure as value } from '../shared/failures';",
  },
  {
    file: 'machines/shared/example.ts',
    forbidden: "import { authMachine as value } from '../auth/auth.machine';",
    allowed: "import { ApiRequestError as value } from './apiError';",
  },
  {
    file: 'machines/example/example.machine.ts',
    forbidden: "import { useState as value } from 'react';",
    allowed: "import { setup as value } from 'xstate';",
  },
  {
    file: 'src/lib/example.ts',
    forbidden: "import { PlanCard as value } from '../components/PlanCard';",
    allowed: "import { PLANS as value } from '../../contract/plans';",
  },
  {
    file: 'src/content/example.ts',
    forbidden: "import { AuthProvider as value } from '../app/auth';",
    allowed: "import { loading as value } from './messages';",
  },
  {
    file: 'src/pages/ExamplePage.tsx',
    forbidden: "import value from './LoginPage';",
    allowed: "import { PlanCard as value } from '../components/PlanCard';",
  },
  {
    file: 'src/components/ExampleForm.tsx',
    forbidden: "import { useActorRef as value } from '@xstate/react';",
    allowed: "import { createChartContext as value } from '../lib/chart';",
  },
  {
    file: 'src/components/Example.tsx',
    forbidden: "import { buildApp as value } from '../../server/app';",
    allowed: "import { authMachine as value } from '../../machines/auth/auth.machine';",
  },
];

describe('the dependency rules (eslint.config.js)', () => {
  it.each(cases)('in $file, reports a forbidden import and accepts an allowed one', async ({ file, forbidden, allowed }) => {
    expect(await problems(file, forbidden)).toEqual([expect.stringMatching(/no-restricted/)]);
    expect(await problems(file, allowed)).toEqual([]);
  });

  it('reports an import cycle', async () => {
    // contract/plans.ts is imported by src/content/plans.ts: a plans module importing it back closes a cycle.
    const found = await problems('contract/plans.ts', "import { PLAN_OFFERS as value } from '../src/content/plans';");
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(/^import-x\/no-cycle/)]));
  });
});

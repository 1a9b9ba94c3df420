// Six projects: jsdom for the SPA and charts, Node for the API (through inject, and as real processes
// for reliability), the production build's files, and Node + Chromium for browser tests (hand-written
// end-to-end ones, and the charts' generated paths).

// argon2id at its production cost (19 MiB, 2 passes) takes tens of milliseconds of a core per hash,
// and the suites make thousands of accounts: the tests hash cheaply (set before the workers and the
// servers they start inherit the environment). tests/api/config.test.ts checks the production cost.
process.env.PASSWORD_HASH_MEMORY_KIB ??= '64';
process.env.PASSWORD_HASH_PASSES ??= '1';

const common = {
  transform: { '^.+\\.[jt]sx?$': 'babel-jest' },
  // A few dependencies ship only ES modules, which jest's CommonJS runtime cannot load on Node 20.
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'json'],
};

// The PostgreSQL databases the API tests make are dropped together when the run ends: each drop
// costs PostgreSQL a checkpoint, and drops made together share one (tests/helpers/postgres.ts).
const databases = {
  globalSetup: '<rootDir>/tests/setup/databasesSetup.ts',
  globalTeardown: '<rootDir>/tests/setup/databasesTeardown.ts',
};

module.exports = {
  // One worker per jest run, set explicitly. `npm test` runs two jest side by side (tests/run.ts):
  // the browser tests in one, the others in the other, so that both cores work. A browser file (a
  // server process and Chromium) alone keeps both cores busy most of the time, so two workers of one
  // jest would mostly put two browser files side by side, each at half speed, while the node tests,
  // which use one core, wait for a worker.
  maxWorkers: 1,
  reporters: ['default', '<rootDir>/tests/setup/countReporter.js'],
  projects: [
    {
      ...common,
      displayName: 'ui',
      testEnvironment: '<rootDir>/tests/setup/jsdomEnvironment.js',
      testMatch: ['<rootDir>/tests/{ui,machines,model}/**/*.test.{ts,tsx}'],
      setupFilesAfterEnv: ['<rootDir>/tests/setup/jsdom.ts'],
    },
    {
      ...common,
      displayName: 'api',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/tests/api/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/tests/setup/api.ts'],
      ...databases,
    },
    {
      ...common,
      displayName: 'reliability',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/tests/reliability/**/*.test.ts'],
      ...databases,
    },
    {
      ...common,
      displayName: 'build',
      testEnvironment: 'node',
      // The production build's files, and the lint rules that keep the code's dependencies one way.
      testMatch: ['<rootDir>/tests/{build,lint}/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/e2e/globalSetup.ts',
      slowTestThreshold: 30,
    },
    {
      ...common,
      displayName: 'paths',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/tests/paths/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/e2e/globalSetup.ts',
      slowTestThreshold: 30,
    },
  ],
};

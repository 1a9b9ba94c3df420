// ESLint flat config: TypeScript rules everywhere, React hooks rules for the SPA, and the
// dependency rules of docs/architecture.md ("Dependency rules"), which tests/lint proves are enforced.
const js = require('@eslint/js');
const importX = require('eslint-plugin-import-x');
const { createTypeScriptImportResolver } = require('eslint-import-resolver-typescript');
const tseslint = require('typescript-eslint');
const reactHooks = require('eslint-plugin-react-hooks');
const globals = require('globals');

module.exports = tseslint.config(
  { ignores: ['dist/', 'data/', 'coverage/', 'node_modules/', '*.tmp.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.tsx', 'src/**/*.ts', 'machines/**/*.ts', 'tests/ui/**/*.tsx', 'tests/model/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['*.js', 'tests/**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...dependencyRules(),
);

/**
 * Which folder may import which, one way (docs/architecture.md): views (src/) → charts (machines/)
 * → contract/; server/ → contract/. The contract imports nothing of the app, the server only the
 * contract, the charts only the contract and their shared folder (no React, nothing of src/), src/lib
 * and src/content no component, no page another page; and no import cycle anywhere in the app's code.
 */
function dependencyRules() {
  const APP = ['contract/**/*.{ts,tsx}', 'src/**/*.{ts,tsx}', 'machines/**/*.{ts,tsx}', 'server/**/*.ts'];
  const VIEWS = ['./src/app', './src/pages', './src/components'];
  const REACT = ['react', 'react-dom', 'react-dom/*', 'react-router', 'react-router-dom', '@xstate/react', '@chakra-ui/*', '@emotion/*', 'formik'];
  const zone = (target, from, message) => ({ target, from, message });
  return [
    {
      files: APP,
      plugins: { 'import-x': importX },
      settings: {
        // The imported files are parsed too (no-cycle follows them), as TypeScript.
        'import-x/extensions': ['.ts', '.tsx', '.js'],
        'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
        'import-x/resolver-next': [createTypeScriptImportResolver()],
      },
      rules: {
        // Cycles through the app's own modules; following node_modules would triple the lint time.
        'import-x/no-cycle': ['error', { ignoreExternal: true }],
        'import-x/no-restricted-paths': [
          'error',
          {
            zones: [
              zone('./contract', ['./src', './machines', './server', './build', './tests'], 'contract/ imports nothing of the app.'),
              zone('./server', ['./src', './machines', './build'], 'server/ imports only contract/ of the app.'),
              zone('./machines', ['./src', './server', './build'], 'machines/ imports contract/ and machines/shared/ only: a chart names its texts by message key and the view words them.'),
              zone(['./src/lib', './src/content'], [...VIEWS, './server'], 'src/lib and src/content import no component, page or app module.'),
              zone('./src', ['./server', './build'], 'The SPA reaches the server over HTTP only; shared shapes are in contract/.'),
              zone('./src/pages', './src/pages', 'A page imports no other page: shared parts go in src/components.'),
            ],
          },
        ],
      },
    },
    {
      // One way to connect a view to a chart: createChartContext of src/lib/chart.ts (docs/architecture.md).
      files: ['src/app/**/*.{ts,tsx}', 'src/pages/**/*.{ts,tsx}', 'src/components/**/*.{ts,tsx}'],
      rules: {
        'no-restricted-imports': [
          'error',
          { paths: [{ name: '@xstate/react', message: 'Views connect to charts through src/lib/chart.ts (createChartContext).' }] },
        ],
      },
    },
    {
      // src/lib may hold hooks (React itself), but no component: the zone above keeps those out.
      files: ['contract/**/*.ts', 'machines/**/*.ts', 'server/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ group: REACT, message: 'React and its libraries belong to the views (src/app, src/pages, src/components).' }] },
        ],
      },
    },
    {
      // A chart's folder reaches another chart only through machines/shared/ (one home for what several use).
      files: ['machines/*/**/*.ts'],
      ignores: ['machines/shared/**'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { group: REACT, message: 'React and its libraries belong to the views (src/app, src/pages, src/components).' },
              { regex: '^\\.\\./(?!shared/)[^./][^/]*/', message: 'A chart imports another chart only through machines/shared/.' },
            ],
          },
        ],
      },
    },
    {
      files: ['machines/shared/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { group: REACT, message: 'React and its libraries belong to the views (src/app, src/pages, src/components).' },
              { regex: '^\\.\\./[^./]', message: 'machines/shared/ imports no chart: the charts import it.' },
            ],
          },
        ],
      },
    },
  ];
}

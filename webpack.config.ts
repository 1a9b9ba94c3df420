import path from 'node:path';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import { DefinePlugin, type Configuration } from 'webpack';
import type { Configuration as DevServerConfiguration } from 'webpack-dev-server';
import { WebBuildPlugin } from './build/webBuildPlugin';

type Env = Record<string, string | boolean | undefined>;
type Patch = { find: string | RegExp; replace: string; optional?: boolean };

/**
 * What build/patch-loader.js changes in library code, by file. Most patches mark code removable:
 * without them, the unused parts stay in every page's JavaScript: Chakra's full default theme
 * (and through it every recipe of the library; src/app/system.ts picks its own), the anatomies of
 * all Chakra's components (and through them a dozen zag-js packages), the parts of each Chakra
 * component the app does not use, and react-router's components for its framework and data modes
 * (kept alive by their displayName assignments; the app has its own links, src/app/RouterLink.tsx).
 * One makes Chakra's global CSS (its tokens, reset and global styles, about a third of the time
 * `createSystem` takes) a value computed when first read: a prerendered page already carries it,
 * and the app then never reads it (src/app/AppProviders.tsx).
 */
const PATCHES: Array<[RegExp, Patch[]]> = [
  [
    /@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]theme[\\/]index\.js$/,
    [{ find: 'const defaultThemeConfig = defineConfig(', replace: 'const defaultThemeConfig = /* @__PURE__ */ defineConfig(' }],
  ],
  [
    /@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]styled-system[\\/]system\.js$/,
    [
      { find: 'const _global = [getPreflightCss(), getGlobalCss(), getTokenCss()];', replace: 'let _global;' },
      { find: '    _global,\n', replace: '    get _global() {\n      return _global ??= [getPreflightCss(), getGlobalCss(), getTokenCss()];\n    },\n' },
    ],
  ],
  // Chakra's field, input and textarea take Ark's parts from its `Field` namespace object, which
  // keeps every part of Ark's field alive (the select, the textarea with its auto-resize, ...).
  ...(
    [
      ['field', ['Root', 'Label', 'HelperText', 'ErrorText'], ', useFieldContext'],
      ['input', ['Input'], ''],
      ['textarea', ['Textarea'], ''],
    ] as const
  ).map(([name, parts, rest]): [RegExp, Patch[]] => [
    new RegExp(`@chakra-ui[\\\\/]react[\\\\/]dist[\\\\/]esm[\\\\/]components[\\\\/]${name}[\\\\/]${name}\\.js$`),
    [
      {
        find: `import { Field${rest} } from '@ark-ui/react/field';`,
        replace: `import { ${parts.map((part) => `Field${part} as ArkField${part}`).join(', ')}${rest} } from '@ark-ui/react/field';`,
      },
      { find: /\bField\.(\w+)/g, replace: 'ArkField$1' },
    ],
  ]),
  [
    /@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]anatomy\.js$/,
    [{ find: /^const (\w+) = ([^;]+);$/gm, replace: 'const $1 = /* @__PURE__ */ (() => $2)();' }],
  ],
  [
    /@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]components[\\/].+\.js$/,
    [{ find: /^const (\w+) = (withContext|withProvider|withRootProvider|forwardRef|chakra|createIcon)\(/gm, replace: 'const $1 = /* @__PURE__ */ $2(', optional: true }],
  ],
  [
    /react-router[\\/]dist[\\/]\w+[\\/]chunk-\w+\.mjs$/,
    [
      { find: /^(\w+)\.displayName = "[^"]+";$/gm, replace: '' },
      { find: /^var (\w+) = (React\d*)\.(forwardRef|memo|createContext)\(/gm, replace: 'var $1 = /* @__PURE__ */ $2.$3(' },
    ],
  ],
];
type Argv = { mode?: Configuration['mode'] };

/** The color-mode script: its own runtime, no shared chunks, so it runs alone, before the page. */
const BOOT_ENTRY = 'colorMode';
/** The static public pages' one script (src/staticPage.ts): alone too, with no React. */
const STATIC_ENTRY = 'staticPage';
/** The script that loads the app on the prerendered pages that hydrate (src/appPage.ts). */
const APP_PAGE_ENTRY = 'appPage';
/** Entries that are a single file of their own, never in the HTML template's script list. */
const STANDALONE = [BOOT_ENTRY, STATIC_ENTRY, APP_PAGE_ENTRY];

/**
 * The SPA build: production output goes to dist/web, which the API server serves, with the public
 * pages prerendered into dist/web/pages (see build/webBuildPlugin.ts).
 */
export default (_env: Env, argv: Argv): Configuration & { devServer?: DevServerConfiguration } => {
  const production = argv.mode !== 'development';
  const buildYear = String(new Date().getFullYear());
  return {
    mode: production ? 'production' : 'development',
    entry: {
      [BOOT_ENTRY]: './src/colorModeBoot.ts',
      [STATIC_ENTRY]: './src/staticPage.ts',
      [APP_PAGE_ENTRY]: './src/appPage.ts',
      // The app's runtime in a chunk of its own (long-cached apart from the code that changes).
      main: { import: './src/main.tsx', runtime: 'runtime' },
    },
    output: {
      path: path.resolve(__dirname, 'dist/web'),
      publicPath: '/',
      filename: production ? 'assets/[name].[contenthash:16].js' : 'assets/[name].js',
      chunkFilename: production ? 'assets/[name].[contenthash:16].js' : 'assets/[name].js',
      assetModuleFilename: 'assets/[name].[contenthash:16][ext]',
      clean: true,
    },
    resolve: {
      extensions: ['.tsx', '.ts', '.js'],
      // react-router's package exports only its development build (with its warnings) to bundlers.
      alias: production
        ? {
            'react-router$': path.resolve(__dirname, 'node_modules/react-router/dist/production/index.mjs'),
            'react-router/dom$': path.resolve(__dirname, 'node_modules/react-router/dist/production/dom-export.mjs'),
          }
        : {},
    },
    // html-webpack-plugin reads public/index.html itself; webpack's own HTML modules would strip
    // the template's <!--app-…--> slots.
    experiments: { html: false },
    module: {
      rules: [
        {
          test: /\.[jt]sx?$/,
          exclude: /node_modules/,
          use: { loader: 'babel-loader', options: { cacheDirectory: true } },
        },
        { test: /\.(svg|png|ico|webp)$/, type: 'asset/resource' },
        ...PATCHES.map(([test, rules]) => ({ test, loader: path.resolve(__dirname, 'build/patch-loader.js'), options: { rules } })),
        // Only formik's withFormik and connect (unused here) need it, but without this flag the
        // package's CommonJS module, and react-is with it, would be bundled for its import alone.
        { test: /node_modules[\\/]hoist-non-react-statics[\\/]/, sideEffects: false },
      ],
    },
    plugins: [
      new HtmlWebpackPlugin({
        template: './public/index.html',
        favicon: './public/favicon.svg',
        scriptLoading: 'defer',
        excludeChunks: STANDALONE,
        // The defaults, keeping the <!--app-…--> slots that the prerender and the server fill.
        minify: production && {
          collapseWhitespace: true,
          keepClosingSlash: true,
          removeComments: true,
          ignoreCustomComments: [/^app-/],
          removeRedundantAttributes: true,
          removeScriptTypeAttributes: true,
          removeStyleLinkTypeAttributes: true,
          useShortDoctype: true,
        },
      }),
      new WebBuildPlugin({ bootEntry: BOOT_ENTRY, staticEntry: STATIC_ENTRY, appPageEntry: APP_PAGE_ENTRY, production, buildYear }),
      new DefinePlugin({ 'process.env.BUILD_YEAR': JSON.stringify(buildYear) }),
    ],
    optimization: {
      splitChunks: { chunks: (chunk) => !STANDALONE.includes(chunk.name ?? '') },
    },
    devtool: production ? false : 'eval-cheap-module-source-map',
    performance: { hints: false },
    devServer: {
      port: 3001,
      historyApiFallback: true,
      hot: true,
      proxy: [{ context: ['/api'], target: 'http://localhost:3000' }],
    },
  };
};

import path from 'node:path';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import { DefinePlugin, type Configuration } from 'webpack';
import type { Configuration as DevServerConfiguration } from 'webpack-dev-server';
import { LIBRARY_PATCHES } from './build/libraryPatches';
import { WebBuildPlugin } from './build/webBuildPlugin';

type Env = Record<string, string | boolean | undefined>;
type Argv = { mode?: Configuration['mode'] };

/** The color-mode script: its own runtime, no shared chunks, so it runs alone, before the page. */
const BOOT_ENTRY = 'colorMode';
/** The static public pages' one script (src/staticPage.ts): alone too, with no React. */
const STATIC_ENTRY = 'staticPage';
/** The script that loads the app on the prerendered pages that hydrate (src/appPage.ts). */
const APP_PAGE_ENTRY = 'appPage';
/** The signed-in pages' first calls (src/firstCalls.ts): inline in the app's page only, after the color mode. */
const FIRST_CALLS_ENTRY = 'firstCalls';
/** Entries that are a single file of their own, never in the HTML template's script list. */
const STANDALONE = [BOOT_ENTRY, STATIC_ENTRY, APP_PAGE_ENTRY, FIRST_CALLS_ENTRY];

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
      [FIRST_CALLS_ENTRY]: './src/firstCalls.ts',
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
        // Library code changed at build time: each patch, why, and what it saves (build/libraryPatches.ts).
        ...LIBRARY_PATCHES.map(({ file, rules }) => ({ test: file, loader: path.resolve(__dirname, 'build/patch-loader.js'), options: { rules } })),
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
      new WebBuildPlugin({ bootEntry: BOOT_ENTRY, firstCallsEntry: FIRST_CALLS_ENTRY, staticEntry: STATIC_ENTRY, appPageEntry: APP_PAGE_ENTRY, production, buildYear }),
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

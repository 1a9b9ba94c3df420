import path from 'node:path';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import type { Configuration } from 'webpack';
import type { Configuration as DevServerConfiguration } from 'webpack-dev-server';

type Env = Record<string, string | boolean | undefined>;
type Argv = { mode?: Configuration['mode'] };

/** The SPA build: production output goes to dist/web, which the API server serves. */
export default (_env: Env, argv: Argv): Configuration & { devServer?: DevServerConfiguration } => {
  const production = argv.mode !== 'development';
  return {
    mode: production ? 'production' : 'development',
    entry: { main: './src/main.tsx' },
    output: {
      path: path.resolve(__dirname, 'dist/web'),
      publicPath: '/',
      filename: production ? 'assets/[name].[contenthash:16].js' : 'assets/[name].js',
      chunkFilename: production ? 'assets/[name].[contenthash:16].js' : 'assets/[name].js',
      assetModuleFilename: 'assets/[name].[contenthash:16][ext]',
      clean: true,
    },
    resolve: { extensions: ['.tsx', '.ts', '.js'] },
    module: {
      rules: [
        {
          test: /\.[jt]sx?$/,
          exclude: /node_modules/,
          use: { loader: 'babel-loader', options: { cacheDirectory: true } },
        },
        { test: /\.(svg|png|ico|webp)$/, type: 'asset/resource' },
      ],
    },
    plugins: [
      new HtmlWebpackPlugin({
        template: './public/index.html',
        favicon: './public/favicon.svg',
        scriptLoading: 'defer',
        minify: production,
      }),
    ],
    optimization: {
      splitChunks: { chunks: 'all' },
      runtimeChunk: 'single',
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

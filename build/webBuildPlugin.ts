import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import { Compilation, sources, type Chunk, type Compiler, type Module } from 'webpack';
import { SCRIPT_NONCE_SLOT } from '../contract/pageSlots';
import { stampLockFile } from './buildIfStale';
import { FIRST_CALLS_ATTRIBUTE, inlinable, MANIFEST_FILE, type BuildManifest } from './manifest';

const NAME = 'WebBuildPlugin';
/** Files worth compressing ahead of time; @fastify/static sends the .br or .gz beside them. */
const COMPRESSIBLE = /\.(?:js|css|svg|json|txt)$/;

interface Options {
  /** The entry whose script runs, blocking, before the first paint (the color mode). */
  bootEntry: string;
  /** The signed-in pages' first calls, inline after the boot script in the app's page (not the prerendered ones). */
  firstCallsEntry: string;
  /** The entry that is the static public pages' only script. */
  staticEntry: string;
  /** The entry that loads the app on the other prerendered pages. */
  appPageEntry: string;
  /** Production builds only: prerender the public pages and precompress the files. */
  production: boolean;
  /** The build's year, for the prerender (the client bundle has it from DefinePlugin). */
  buildYear: string;
}

const jsFiles = (files: Iterable<string>) => [...files].filter((file) => file.endsWith('.js'));

/**
 * V8's explicit compile hint (Chromium 136 and later): a script that begins with this comment has
 * all its functions compiled as it streams in, on a background thread, instead of on the main
 * thread the first time each is called. Given to the scripts that draw a page (the entry, the
 * pages' chunks, the API client), whose functions nearly all run as the page starts.
 */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

/** The pages' chunk groups (`page-<name>`, each page's chunk with the shared chunks it needs), by name. */
const pageChunkGroups = (compilation: Compilation) => [...compilation.namedChunkGroups].filter(([name]) => name.startsWith('page-'));

/**
 * The scripts that draw a page: the app's entry, each page's chunk with the shared chunks it needs,
 * and the API client (none in a child compilation, such as the HTML plugin's).
 */
function pageDrawingScripts(compilation: Compilation): Set<string> {
  const groups = [compilation.entrypoints.get('main'), compilation.namedChunkGroups.get('http'), ...pageChunkGroups(compilation).map(([, group]) => group)];
  return new Set(groups.flatMap((group) => jsFiles(group?.getFiles() ?? [])));
}

/** The npm packages whose code is in `chunks` (a concatenated module counts each of its parts). */
function packagesIn(compilation: Compilation, chunks: Iterable<Chunk>): string[] {
  const found = new Set<string>();
  const visit = (module: Module) => {
    const inner = (module as Module & { modules?: Module[] }).modules;
    if (inner) inner.forEach(visit);
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(module.nameForCondition() ?? '');
    if (match?.[1]) found.add(match[1].replace('\\', '/'));
  };
  for (const chunk of chunks) for (const module of compilation.chunkGraph.getChunkModulesIterable(chunk)) visit(module);
  return [...found].sort();
}

/** The one JS file of a standalone entry (a script of its own, with no runtime or shared chunk). */
function standaloneScript(compilation: Compilation, name: string): string {
  const [file] = jsFiles(compilation.entrypoints.get(name)?.getFiles() ?? []);
  if (!file) throw new Error(`${NAME}: the build has no ${name} script.`);
  return file;
}

/** The JS files of a chunk named with webpackChunkName (and of the shared chunks it needs). */
function namedScripts(compilation: Compilation, name: string): string[] {
  const files = jsFiles(compilation.namedChunkGroups.get(name)?.getFiles() ?? []);
  if (files.length === 0) throw new Error(`${NAME}: the build has no chunk named ${name}.`);
  return files;
}

function manifestOf(compilation: Compilation, { bootEntry, staticEntry, appPageEntry }: Options): BuildManifest {
  const entry = compilation.entrypoints.get('main');
  const staticPage = compilation.entrypoints.get(staticEntry);
  if (!entry || !staticPage) throw new Error(`${NAME}: the build lacks the main or ${staticEntry} entry.`);
  const chunks: BuildManifest['chunks'] = {};
  const packages: BuildManifest['packages'] = { [staticEntry]: packagesIn(compilation, staticPage.chunks) };
  for (const [name, group] of pageChunkGroups(compilation)) {
    chunks[name] = jsFiles(group.getFiles());
    packages[name] = packagesIn(compilation, [...entry.chunks, ...group.chunks]);
  }
  return {
    boot: standaloneScript(compilation, bootEntry),
    staticScript: standaloneScript(compilation, staticEntry),
    appPageScript: standaloneScript(compilation, appPageEntry),
    entry: jsFiles(entry.getFiles()),
    calls: namedScripts(compilation, 'http'),
    chunks,
    packages,
  };
}

function precompress(dir: string): void {
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(dir, file);
    if (!COMPRESSIBLE.test(file) || !fs.statSync(full).isFile()) continue;
    const content = fs.readFileSync(full);
    fs.writeFileSync(`${full}.br`, zlib.brotliCompressSync(content, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
    fs.writeFileSync(`${full}.gz`, zlib.gzipSync(content, { level: 9 }));
  }
}

/**
 * The build steps around webpack's own: the color-mode script inlined as the first script of
 * the page, run before the first paint; then, in production, the manifest of what each page loads, the prerendered public
 * pages (build/prerender.ts, in its own Node process so React renders in production mode) and
 * brotli and gzip copies of the files.
 */
export class WebBuildPlugin {
  constructor(private readonly options: Options) {}

  apply(compiler: Compiler): void {
    const { bootEntry, firstCallsEntry, production, buildYear } = this.options;
    compiler.hooks.compilation.tap(NAME, (compilation) => {
      // After the minifier, which would drop the comment; before the content hashes are taken.
      if (production) {
        compilation.hooks.processAssets.tap({ name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_DEV_TOOLING }, () => {
          for (const file of pageDrawingScripts(compilation)) {
            compilation.updateAsset(file, (source) => new sources.ConcatSource(COMPILE_HINT, source));
          }
        });
      }
      HtmlWebpackPlugin.getHooks(compilation).alterAssetTagGroups.tap(NAME, (groups) => {
        const scripts: Array<{ file: string; attributes: Record<string, boolean> }> = [
          { file: standaloneScript(compilation, bootEntry), attributes: {} },
          { file: standaloneScript(compilation, firstCallsEntry), attributes: { [FIRST_CALLS_ATTRIBUTE]: true } },
        ];
        if (!production) {
          // The dev server adds its client to every entry: too much to inline, and no CSP there.
          groups.headTags.unshift(...scripts.map(({ file, attributes }) => HtmlWebpackPlugin.createHtmlTagObject('script', { ...attributes, src: `${groups.publicPath}${file}` })));
          return groups;
        }
        // Inline, with the response's script nonce: a file would cost the first paint a request.
        groups.headTags.unshift(
          ...scripts.map(({ file, attributes }) =>
            HtmlWebpackPlugin.createHtmlTagObject('script', { nonce: SCRIPT_NONCE_SLOT, ...attributes }, inlinable(compilation.getAsset(file)?.source.source().toString() ?? '', file)),
          ),
        );
        return groups;
      });
    });
    if (!production) return;
    compiler.hooks.afterEmit.tap(NAME, (compilation) => {
      if (compilation.errors.length > 0) return;
      const outputDir = compilation.outputOptions.path as string;
      fs.writeFileSync(MANIFEST_FILE, `${JSON.stringify(manifestOf(compilation, this.options), null, 2)}\n`);
      stampLockFile();
      execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'prerender.ts')], {
        stdio: 'inherit',
        env: { ...process.env, NODE_ENV: 'production', BUILD_YEAR: buildYear },
      });
      precompress(outputDir);
    });
  }
}

/**
 * Every change the build makes to library code (applied by build/patch-loader.js, wired in
 * webpack.config.ts). A patch must pay for itself in what a user gets, measured: first-load JS of
 * /login (gzip, as tests/build/budgets.test.ts counts it) built with and without it, or main-thread
 * time at start-up (Lighthouse, `npm run bench:web`). Every rule must match, so a library update
 * that changes the patched code fails the build instead of quietly undoing the patch (which is
 * also why Chakra's version is pinned: a new one is taken together with a look at this list).
 *
 * 1. `@chakra-ui/react/dist/esm/theme/index.js`: `defaultThemeConfig` marked pure. Chakra builds
 *    its whole default theme at the top of that module, so importing one recipe from
 *    `@chakra-ui/react/theme` keeps every recipe of the library (and the dozen zag-js packages
 *    their anatomies import). With it, src/app/theme.ts takes only the recipes the app renders:
 *    19.9 KiB less on /login (180.1 → 160.2). A component whose recipe src/app/theme.ts does not
 *    list would render unstyled: tests/ui/chakraStyles.test.tsx renders every Chakra component
 *    src/ imports and fails on one without its recipe's styles.
 * 2. `@chakra-ui/react/dist/esm/styled-system/system.js`: the system's global CSS (tokens as CSS
 *    variables, reset, global styles) computed when first read instead of in `createSystem`. A
 *    prerendered page carries that CSS in its HTML, and src/app/AppProviders.tsx then never reads
 *    it; it is about half of `createSystem`, the longest task of the app's start-up (see
 *    docs/performance.md for the Lighthouse runs with and without it). It costs 0.3 KiB.
 *
 * Not a rewrite but listed here too: webpack.config.ts flags `hoist-non-react-statics` free of side
 * effects (true of it; formik imports it only for `withFormik`, which the app does not use): 0.9 KiB.
 *
 * Dropped after measuring (first-load JS of /login each saved, gzip): marking react-router's
 * components removable by deleting their displayName assignments (4.3 KiB), having Chakra's
 * field, input and textarea import single Ark parts instead of Ark's field namespace (1.7 KiB),
 * marking Chakra's anatomies (1.1 KiB) and its components' top-level definitions (0.3 KiB) pure.
 * Each is a few milliseconds of download on a slow phone, not worth rewriting a library's code.
 */
export interface Patch {
  /** A string, or a global RegExp for every occurrence. */
  find: string | RegExp;
  replace: string;
}

export const LIBRARY_PATCHES: Array<{ file: RegExp; rules: Patch[] }> = [
  {
    file: /@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]theme[\\/]index\.js$/,
    rules: [{ find: 'const defaultThemeConfig = defineConfig(', replace: 'const defaultThemeConfig = /* @__PURE__ */ defineConfig(' }],
  },
  {
    file: /@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]styled-system[\\/]system\.js$/,
    rules: [
      { find: 'const _global = [getPreflightCss(), getGlobalCss(), getTokenCss()];', replace: 'let _global;' },
      { find: '    _global,\n', replace: '    get _global() {\n      return _global ??= [getPreflightCss(), getGlobalCss(), getTokenCss()];\n    },\n' },
    ],
  },
];

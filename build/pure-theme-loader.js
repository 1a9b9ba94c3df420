// A webpack loader for @chakra-ui/react's theme/index.js: it marks the construction of Chakra's
// full default theme as pure. src/app/system.ts reads only the theme's tokens from that module and
// picks its recipes one by one; without the mark, webpack keeps the unused default theme and,
// through it, every recipe of the library.
const DEFAULT_THEME = 'const defaultThemeConfig = defineConfig(';

module.exports = function markDefaultThemePure(source) {
  if (!source.includes(DEFAULT_THEME)) {
    throw new Error(`pure-theme-loader: "${DEFAULT_THEME}" is gone from ${this.resourcePath}; see src/app/system.ts.`);
  }
  return source.replace(DEFAULT_THEME, 'const defaultThemeConfig = /* @__PURE__ */ defineConfig(');
};

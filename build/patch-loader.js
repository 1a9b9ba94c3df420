// A webpack loader that patches library code at build time: mostly to let webpack and terser drop
// the parts of a library the app never uses, where the library's own build keeps them alive with
// top-level code that looks side-effectful. Options: `rules`, each `{ find, replace, optional }`
// (a string or a global RegExp, and its replacement); every rule not marked optional must match,
// so a library update that changes the code fails the build instead of quietly undoing the patch
// (optional: rules for a whole folder of modules, where some have nothing to patch). The rules
// are in webpack.config.ts.
module.exports = function patchLoader(source) {
  const { rules } = this.getOptions();
  return rules.reduce((code, { find, replace, optional }) => {
    const matches = typeof find === 'string' ? code.includes(find) : find.test(code);
    if (typeof find !== 'string') find.lastIndex = 0;
    if (!matches && optional) return code;
    if (!matches) throw new Error(`patch-loader: ${String(find)} is gone from ${this.resourcePath}; see webpack.config.ts.`);
    return code.replace(find, replace);
  }, source);
};

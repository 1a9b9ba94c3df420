// A webpack loader that rewrites library code at build time. Options: `rules`, each `{ find,
// replace }` (a string or a global RegExp, and its replacement), every one of which must match:
// a library update that changes the code fails the build instead of quietly undoing the patch.
// The patches, each with why and what it saves, are listed in build/libraryPatches.ts.
module.exports = function patchLoader(source) {
  const { rules } = this.getOptions();
  return rules.reduce((code, { find, replace }) => {
    const matches = typeof find === 'string' ? code.includes(find) : find.test(code);
    if (typeof find !== 'string') find.lastIndex = 0;
    if (!matches) throw new Error(`patch-loader: ${String(find)} is gone from ${this.resourcePath}; see build/libraryPatches.ts.`);
    return code.replace(find, replace);
  }, source);
};

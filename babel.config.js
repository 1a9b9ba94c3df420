// One Babel setup for webpack (browsers, ES modules kept for tree shaking) and jest (current Node, CommonJS).
module.exports = (api) => {
  const isTest = api.env('test');
  return {
    presets: [
      [
        '@babel/preset-env',
        isTest
          ? { targets: { node: 'current' } }
          : { targets: 'defaults and supports es6-module', modules: false, bugfixes: true },
      ],
      ['@babel/preset-react', { runtime: 'automatic' }],
      '@babel/preset-typescript',
    ],
  };
};

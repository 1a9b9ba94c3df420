import { createStyleCache } from '../../src/app/AppProviders';

// Chromium restyles the whole page when a rule in a cascade layer or a media query (most of
// Chakra's) is added to a style sheet already in use, so the app's Emotion cache starts a new style
// element for each commit's rules (src/app/AppProviders.tsx). The production build inserts rules
// with insertRule, the development build jest loads gives each rule an element of its own: the
// tests set the production mode.
function speedyCache() {
  const cache = createStyleCache('n0nce');
  cache.sheet.isSpeedy = true;
  return cache;
}

const rulesByElement = () =>
  [...document.head.querySelectorAll<HTMLStyleElement>('style[data-emotion="sm"]')].map((style) => [...style.sheet!.cssRules].map((rule) => (rule as CSSStyleRule).selectorText));

test("one commit's rules share a new style element, the next commit's go into another after it", async () => {
  const { sheet } = speedyCache();
  sheet.insert('.first-a { color: red; }');
  sheet.insert('.first-b { color: blue; }');
  await Promise.resolve();
  sheet.insert('.second { color: green; }');
  await Promise.resolve();
  sheet.insert('.third-a { color: black; }');
  sheet.insert('.third-b { color: white; }');
  expect(rulesByElement()).toEqual([['.first-a', '.first-b'], ['.second'], ['.third-a', '.third-b']]);
});

test('every style element carries the page’s nonce (the content security policy allows no other)', async () => {
  const { sheet } = speedyCache();
  sheet.insert('.one { color: red; }');
  await Promise.resolve();
  sheet.insert('.two { color: blue; }');
  const styles = [...document.head.querySelectorAll<HTMLStyleElement>('style[data-emotion="sm"]')];
  expect(styles).toHaveLength(2);
  for (const style of styles) expect(style.getAttribute('nonce')).toBe('n0nce');
});

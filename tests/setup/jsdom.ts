import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { http } from '../../machines/shared/http';
import { offline } from '../helpers/fakeApi';

// No test in jsdom reaches a real server. A call that the test does not answer (installFakeApi in
// tests/helpers/fakeApi.ts), such as the membership check under a page a test renders for its
// own chart, fails at once as it does offline, instead of trying localhost:80: that try logged
// ECONNREFUSED and left jsdom's 20 s request timer behind, which kept jest alive after the run.
http.defaults.adapter = offline;

// A test's first visit to a page compiles and loads the page's lazy chunk, which on a busy machine
// (npm test runs two jest side by side, tests/run.ts) takes longer than Testing Library's default
// second; the test itself gets room for that wait and the steps after it.
configure({ asyncUtilTimeout: 5000 });
jest.setTimeout(20000);

// Each test renders the app as a page load would, under a style cache of its own that inserts its
// styles anew; Testing Library empties the body after a test but not the head, where those styles
// stayed: some 50 rules a test, over 4,000 by a file's last test. Every visibility check a role
// query makes reads them all, so each test ran slower than the one before it.
afterEach(() => {
  for (const style of document.head.querySelectorAll('style[data-emotion]')) style.remove();
});

// jsdom lacks the layout APIs Chakra and its positioning helpers ask about.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
class NoopObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
  takeRecords() {
    return [];
  }
}
globalThis.ResizeObserver ??= NoopObserver as unknown as typeof ResizeObserver;
globalThis.IntersectionObserver ??= NoopObserver as unknown as typeof IntersectionObserver;
window.scrollTo = () => undefined;

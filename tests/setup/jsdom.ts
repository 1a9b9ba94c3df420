import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { AxiosError } from 'axios';
import { http } from '../../src/lib/http';

// No test in jsdom reaches a real server. A call that the test does not answer (installFakeApi in
// tests/helpers/fakeApi.ts), such as the membership check under a page a test renders for its
// own chart, fails at once as it does offline, instead of trying localhost:80: that try logged
// ECONNREFUSED and left jsdom's 20 s request timer behind, which kept jest alive after the run.
http.defaults.adapter = async (config) => {
  throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
};

// A test's first visit to a page compiles and loads the page's lazy chunk, which on a busy machine
// (CI runs six projects at once) takes longer than Testing Library's default second; the test
// itself gets room for that wait and the steps after it.
configure({ asyncUtilTimeout: 5000 });
jest.setTimeout(20000);

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

import { act } from '@testing-library/react';
import type { Root } from 'react-dom/client';
import { mountApp } from '../../src/app/mountApp';
import { PRERENDERED_PAGES } from '../../src/app/routes';
import { fillConfigSlots } from '../../contract/pageSlots';
import { defaultRuntimeConfig, type RuntimeConfig } from '../../contract/runtimeConfig';
import { markColorModeToggles } from '../../src/lib/colorMode';
import { renderPage } from '../../src/prerender';

/**
 * The prerender's HTML hydrated by the app's own start-up code, with React's development build,
 * which reports every difference between the HTML and the first client render (text, attributes,
 * ids), so a page that would flash or lose its markup in the browser fails here. (Emotion sees
 * jsdom's document and keeps its CSS there: tests/build checks the critical CSS of the built pages.)
 */
const config: RuntimeConfig = {
  ...defaultRuntimeConfig,
  brandName: 'Acme & <Co>',
  supportEmail: 'help@acme.example',
  generalEmail: 'hi@acme.example',
  marketplaceUrl: 'https://market.example/acme?x=1&y=2',
};

describe.each(PRERENDERED_PAGES.map((page) => page.path))('the prerendered page %s', (path) => {
  let root: Root | undefined;
  afterEach(() => {
    act(() => root?.unmount());
    document.body.innerHTML = '';
  });

  it('hydrates without a mismatch, keeping the server markup, with the runtime config in place', async () => {
    const page = await renderPage(path);
    expect(page.html).not.toMatch(/style="/);
    expect(page.html).not.toContain('SheetMind');

    window.history.replaceState(null, '', path);
    document.body.innerHTML = `<div id="root">${fillConfigSlots(page.html, config)}</div>`;
    const container = document.getElementById('root') as HTMLElement;
    const heading = container.querySelector('h1');
    expect(heading).not.toBeNull();
    expect(container.textContent).toContain(config.brandName);
    // What the color-mode script does to the HTML's color-mode button before the app hydrates it.
    expect(markColorModeToggles()).toBe(true);

    const errors = jest.spyOn(console, 'error');
    await act(async () => {
      root = await mountApp(container, config);
    });
    expect(errors.mock.calls).toEqual([]);
    errors.mockRestore();
    // The very element of the HTML, not a client re-render of it.
    expect(container.querySelector('h1')).toBe(heading);
    expect(document.title).toBe(page.title.replaceAll('%%config.brandName%%', config.brandName));
  });
});

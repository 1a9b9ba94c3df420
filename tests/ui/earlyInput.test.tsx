import { act, screen, waitFor } from '@testing-library/react';
import type { Root } from 'react-dom/client';
import { mountApp } from '../../src/app/mountApp';
import * as messages from '../../src/content/messages';
import { fillConfigSlots } from '../../contract/pageSlots';
import { defaultRuntimeConfig } from '../../contract/runtimeConfig';
import { renderPage } from '../../src/prerender';
import { ada, installFakeApi } from '../helpers/fakeApi';

/**
 * The prerendered /login with its fields filled and its form sent before the app took over (as
 * src/appPage.ts holds such a submit), then taken over by the app's own start-up code: the app
 * keeps the values and sends them. tests/e2e/earlyInput.test.ts does the same in Chromium.
 */
let root: Root | undefined;
afterEach(() => {
  act(() => root?.unmount());
  document.body.innerHTML = '';
  localStorage.clear();
});

it('a prerendered form keeps what was filled before the app took over, and sends the submit made then', async () => {
  // Refused, so the page stays to be looked at.
  const api = installFakeApi({ 'POST /auth/login/email': { status: 401, body: { error: { code: 'invalid_credentials', message: 'Invalid email or password' } } } });
  const page = await renderPage('/login');
  window.history.replaceState(null, '', '/login');
  document.body.innerHTML = `<div id="root">${fillConfigSlots(page.html, defaultRuntimeConfig)}</div>`;
  const form = document.querySelector('form')!;
  const input = (name: string) => form.querySelector<HTMLInputElement>(`[name="${name}"]`)!;
  input('email').value = ada.email;
  input('password').value = 'Analytical-Engine-1843';
  window.heldSubmit = form;

  await act(async () => {
    root = await mountApp(document.getElementById('root')!, defaultRuntimeConfig);
  });
  await waitFor(() => expect(api.sent('POST /auth/login/email').map((request) => request.body)).toEqual([{ email: ada.email, password: 'Analytical-Engine-1843' }]));
  expect(await screen.findByText(messages.auth.loginUnauthorized)).toBeInTheDocument();
  expect(input('email').value).toBe(ada.email);
  expect(input('password').value).toBe('Analytical-Engine-1843');
  expect(window.heldSubmit).toBeUndefined();
  api.restore();
});

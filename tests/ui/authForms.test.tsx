import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { authMachine } from '../../machines/auth/auth.machine';
import * as messages from '../../src/content/messages';
import { toaster } from '../../src/components/ToastRegion';
import { ada, installFakeApi } from '../helpers/fakeApi';
import { renderApp } from '../helpers/renderApp';

const field = (label: string) => screen.getByLabelText(new RegExp(`^${label}`));

let api: ReturnType<typeof installFakeApi> | undefined;
beforeEach(() => {
  localStorage.clear();
  toaster.remove();
});
afterEach(() => api?.restore());

describe('register form', () => {
  const t = messages.register;

  it('with both passwords empty says only that the password is required', async () => {
    renderApp('/register');
    await userEvent.click(await screen.findByRole('button', { name: t.submit }));
    expect(await screen.findByText(t.passwordRequired)).toBeInTheDocument();
    expect(screen.queryByText(t.passwordsMismatch)).not.toBeInTheDocument();
  });

  it('with a password and an empty confirmation says they do not match', async () => {
    renderApp('/register');
    await userEvent.type(await screen.findByLabelText(new RegExp(`^${t.password}`)), 'Cobol-rules-1959');
    await userEvent.click(screen.getByRole('button', { name: t.submit }));
    expect(await screen.findByText(t.passwordsMismatch)).toBeInTheDocument();
    expect(screen.queryByText(t.passwordRequired)).not.toBeInTheDocument();
  });
});

describe('login form', () => {
  it('stays busy after signing in until the page has changed', async () => {
    api = installFakeApi({ 'POST /auth/login/email': { status: 200, body: { access_token: 'a', refresh_token: 'r', user: ada } } });
    // A welcome moment long enough to look at; the real one lasts a second.
    const { router } = renderApp('/login', {}, authMachine.provide({ delays: { loginRedirectDelay: 60_000 } }));
    await userEvent.type(await screen.findByLabelText(new RegExp(`^${messages.login.email}`)), ada.email);
    await userEvent.type(field(messages.login.password), 'Analytical-Engine-1843');
    await userEvent.click(screen.getByRole('button', { name: messages.login.submit }));
    expect(await screen.findByText(messages.auth.welcomeBack)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByRole('button', { name: messages.login.busy })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: messages.login.submit })).not.toBeInTheDocument();
  });
});

import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as messages from '../../src/content/messages';
import { toaster } from '../../src/components/ToastRegion';
import { ada, signedInApi, type Handler, type Reply } from '../helpers/fakeApi';
import { renderApp } from '../helpers/renderApp';

const t = messages.profile;

let api: ReturnType<typeof signedInApi>;
function open(routes: Record<string, Handler> = {}) {
  api = signedInApi({
    'GET /subscription/me': { status: 200, body: { plan: 'professional', status: 'active', usage_limits: { monthly_queries: 1000, daily_tokens: 50000 } } },
    'PUT /users/me/password': { status: 204 },
    ...routes,
  });
  return renderApp('/profile');
}
const field = (label: string) => screen.getByLabelText(new RegExp(`^${label}`)) as HTMLInputElement;
const fill = async (values: { current?: string; next?: string; confirm?: string }) => {
  const user = userEvent.setup();
  if (values.current) await user.type(field(t.currentPassword), values.current);
  if (values.next) await user.type(field(t.newPassword), values.next);
  if (values.confirm) await user.type(field(t.confirmNewPassword), values.confirm);
  await user.click(screen.getByRole('button', { name: t.updatePassword }));
};
const passwordCalls = () => api.sent('PUT /users/me/password');

// The page's lazy modules are transformed by jest on first import, which on a loaded machine takes
// longer than a find waits: load them once before the first test, as a browser has them cached.
beforeAll(() => import('../../src/pages/ProfilePage'), 60_000);

beforeEach(() => {
  localStorage.clear();
  toaster.remove();
});
afterEach(() => api.restore());

describe('profile', () => {
  it('shows the account read-only, with the note to contact support', async () => {
    open();
    expect(await screen.findByRole('heading', { level: 1, name: t.title })).toBeInTheDocument();
    const details = within(screen.getByRole('region', { name: t.detailsTitle }));
    for (const [label, value] of [
      [t.fullName, ada.full_name],
      [t.username, ada.username],
      [t.email, ada.email],
      [t.memberSince, new Date(ada.created_at).toLocaleDateString()],
    ]) {
      expect(details.getByText(label!).nextSibling).toHaveTextContent(value!);
    }
    expect(details.getByText(t.detailsNote)).toBeInTheDocument();
    expect(details.queryByRole('textbox')).toBeNull();
  });

  it('shows the current plan, Manage Subscription leading to /subscription, and the support button', async () => {
    open();
    const plan = within(await screen.findByRole('region', { name: t.planTitle }));
    // The account says free; the subscription, once loaded, says professional.
    expect(await plan.findByText('Professional')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: t.helpTitle })).getByRole('link', { name: t.contactSupport })).toHaveAttribute('href', '/support');
    await userEvent.setup().click(plan.getByRole('link', { name: t.manageSubscription }));
    expect(await screen.findByRole('heading', { level: 1, name: messages.subscription.heading })).toBeInTheDocument();
  });

  it('refuses an empty form and a short new password with the spec’s messages, sending nothing', async () => {
    open();
    await screen.findByRole('heading', { level: 1, name: t.title });
    await fill({});
    expect(await screen.findByText(t.currentPasswordRequired)).toBeInTheDocument();
    expect(screen.getByText(t.passwordShort)).toBeInTheDocument();
    await waitFor(() => expect(field(t.currentPassword)).toHaveFocus());
    await fill({ current: 'Old-password-1', next: 'short', confirm: 'short' });
    expect(screen.queryByText(t.currentPasswordRequired)).toBeNull();
    expect(screen.getByText(t.passwordShort)).toBeInTheDocument();
    expect(passwordCalls()).toHaveLength(0);
  });

  it('answers a confirmation that does not match with the toast, sending nothing', async () => {
    open();
    await screen.findByRole('heading', { level: 1, name: t.title });
    await fill({ current: 'Old-password-1', next: 'New-password-22', confirm: 'New-password-23' });
    expect(await screen.findByText(t.passwordsMismatch)).toBeInTheDocument();
    expect(screen.getByText(t.error)).toBeInTheDocument();
    expect(passwordCalls()).toHaveLength(0);
    expect(field(t.newPassword).value).toBe('New-password-22');
  });

  it('changes the password: Updating... while busy, the success toast, and a cleared form', async () => {
    let answer!: () => void;
    open({ 'PUT /users/me/password': () => new Promise<Reply>((resolve) => (answer = () => resolve({ status: 204 }))) });
    await screen.findByRole('heading', { level: 1, name: t.title });
    await fill({ current: 'Old-password-1', next: 'New-password-22', confirm: 'New-password-22' });
    expect(await screen.findByRole('button', { name: t.updating })).toBeDisabled();
    await waitFor(() => expect(passwordCalls()).toHaveLength(1));
    expect(passwordCalls()[0]!.body).toEqual({ current_password: 'Old-password-1', new_password: 'New-password-22' });
    expect(passwordCalls()[0]!.authorization).toBe('Bearer access-1');
    await act(async () => answer());
    expect(await screen.findByText(t.updated)).toBeInTheDocument();
    for (const label of [t.currentPassword, t.newPassword, t.confirmNewPassword]) expect(field(label).value).toBe('');
    expect(screen.getByRole('button', { name: t.updatePassword })).toBeEnabled();
  });

  it.each([
    ['a wrong current password', { status: 400, body: { error: { code: 'invalid_current_password', message: 'The current password is not correct.', field: 'current_password' } } } as Reply, t.updateFailed],
    [
      'a new password the server refuses',
      { status: 400, body: { error: { code: 'password_too_common', message: 'This password is one of the most commonly used passwords. Please choose another.' } } } as Reply,
      'This password is one of the most commonly used passwords. Please choose another.',
    ],
    ['no connection', 'network' as Reply, messages.auth.networkFailure],
    ['a server failure', { status: 500, body: { error: { code: 'internal', message: 'boom' } } } as Reply, t.updateFailed],
  ])('shows why on %s, keeping what was typed', async (_case, reply, text) => {
    open({ 'PUT /users/me/password': reply });
    await screen.findByRole('heading', { level: 1, name: t.title });
    await fill({ current: 'Old-password-1', next: 'New-password-22', confirm: 'New-password-22' });
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(screen.getByText(t.error)).toBeInTheDocument();
    expect(field(t.currentPassword).value).toBe('Old-password-1');
  });

  it('says under New Password, and moves the focus there, when the server finds the new password is the current one', async () => {
    const refusal = { error: { code: 'password_unchanged', message: 'Server wording.', field: 'new_password' } };
    open({ 'PUT /users/me/password': { status: 400, body: refusal } });
    await screen.findByRole('heading', { level: 1, name: t.title });
    await fill({ current: 'Same-password-1', next: 'Same-password-1', confirm: 'Same-password-1' });
    await waitFor(() => expect(field(t.newPassword)).toHaveAccessibleErrorMessage(t.passwordUnchanged));
    expect(field(t.newPassword)).toBeInvalid();
    expect(field(t.newPassword)).toHaveFocus();
    expect(field(t.currentPassword)).toBeValid();
    expect(screen.queryByText(t.updateFailed)).not.toBeInTheDocument();
    expect(field(t.newPassword).value).toBe('Same-password-1');
    // Typing a new one takes the message away.
    await userEvent.setup().type(field(t.newPassword), 'x');
    await waitFor(() => expect(field(t.newPassword)).not.toHaveAccessibleErrorMessage());
  });

  it('asks before a deletion request, then only shows the toast, with no server call', async () => {
    open();
    await screen.findByRole('heading', { level: 1, name: t.title });
    const danger = within(screen.getByRole('region', { name: t.dangerZone }));
    const confirm = jest.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    const user = userEvent.setup();
    const before = api.requests.length;

    // Nothing on the page claims a deletion it does not make: it only asks the person to contact support.
    expect(danger.queryByText(/permanently|removes/i)).toBeNull();
    await user.click(danger.getByRole('button', { name: t.deleteAccount }));
    expect(confirm).toHaveBeenLastCalledWith(t.deleteConfirm);
    expect(screen.queryByText(t.deletionRequested)).toBeNull();

    await user.click(danger.getByRole('button', { name: t.deleteAccount }));
    expect(await screen.findByText(t.deletionRequested)).toBeInTheDocument();
    expect(screen.getByText(t.deletionRequestedText('support@sheetmind.example'))).toBeInTheDocument();
    expect(confirm).toHaveBeenCalledTimes(2);
    expect(api.requests.length).toBe(before);
    confirm.mockRestore();
  });

  // Chakra's checkbox makes a PointerEvent when it loses focus, which jsdom lacks.
  const withPointerEvent = () => {
    const had = 'PointerEvent' in window;
    if (!had) Object.assign(window, { PointerEvent: class extends MouseEvent {} });
    return () => void (had || delete (window as { PointerEvent?: unknown }).PointerEvent);
  };
  it.each([
    ['a query-only key', messages.credentials.scopeUsage, ['query']],
    ['a usage-only key', messages.credentials.scopeQuery, ['usage:read']],
  ])('makes %s by clicking the other scope’s label off (each checkbox has its own id)', async (_what, untick, scopes) => {
    const c = messages.credentials;
    const restore = withPointerEvent();
    const created = { id: 'k1', key: 'sm_live_x', name: 'Script', prefix: 'sm_live_', last4: 'abcd', scopes, created_at: ada.created_at, expires_at: null, last_used_at: null };
    open({ 'GET /sessions': { status: 200, body: { sessions: [] } }, 'GET /api-keys': { status: 200, body: { api_keys: [] } }, 'POST /api-keys': { status: 201, body: created } });
    const keys = within(await screen.findByRole('region', { name: c.keysTitle }));
    const user = userEvent.setup();
    const query = keys.getByRole('checkbox', { name: c.scopeQuery });
    const usage = keys.getByRole('checkbox', { name: c.scopeUsage });
    expect(query.id).not.toBe(usage.id);
    await user.click(keys.getByText(untick));
    expect(keys.getByRole('checkbox', { name: untick })).not.toBeChecked();
    expect(keys.getByRole('checkbox', { name: untick === c.scopeQuery ? c.scopeUsage : c.scopeQuery })).toBeChecked();
    await user.type(keys.getByRole('textbox', { name: new RegExp(`^${c.keyName}`) }), 'Script');
    await user.click(keys.getByRole('button', { name: c.createKey }));
    await waitFor(() => expect(api.sent('POST /api-keys')).toHaveLength(1));
    expect(api.sent('POST /api-keys')[0]!.body).toEqual({ name: 'Script', scopes, expires_in_days: 90 });
    restore();
  });
});

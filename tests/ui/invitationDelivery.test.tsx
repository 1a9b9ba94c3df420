import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PendingInvitations } from '../../src/components/team/TeamInvitations';
import * as messages from '../../src/content/messages';
import { renderSignedIn } from '../helpers/renderApp';

/** A pending invitation whose mail could not be delivered says so on /team, beside its Resend. */

const t = messages.team;
const invitation = (email: string, delivery: 'sent' | 'pending' | 'failed') => ({ id: `i-${email}`, email, role: 'member' as const, expires_at: '2026-12-01T12:00:00.000Z', delivery });

it('says which invitation mail could not be delivered, and its Resend sends it again', async () => {
  const onResend = jest.fn();
  renderSignedIn('/team', <PendingInvitations invitations={[invitation('ok@example.com', 'sent'), invitation('bounced@example.com', 'failed')]} busy={false} onResend={onResend} onRevoke={jest.fn()} />);
  const notice = await screen.findByText(t.deliveryFailed);
  expect(screen.getAllByText(t.deliveryFailed)).toHaveLength(1);
  expect(notice.closest('li')).toHaveTextContent('bounced@example.com');
  await userEvent.click(screen.getByRole('button', { name: `${t.resend}: bounced@example.com` }));
  expect(onResend).toHaveBeenCalledWith('i-bounced@example.com');
});

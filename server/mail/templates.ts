import type { MailMessage } from './mailer';

interface Brand {
  brandName: string;
  supportEmail: string;
}

export function passwordResetMail(to: string, link: string, brand: Brand): MailMessage {
  return {
    to,
    kind: 'password_reset',
    subject: `Reset your ${brand.brandName} password`,
    text: [
      'Hello,',
      '',
      `Someone (hopefully you) asked to reset the password of your ${brand.brandName} account.`,
      'Open this link to choose a new password. It works once and expires in 1 hour:',
      '',
      link,
      '',
      'If you did not ask for this, ignore this e-mail: your password stays as it is.',
      '',
      `— The ${brand.brandName} team (${brand.supportEmail})`,
    ].join('\n'),
  };
}

export function passwordChangedMail(to: string, brand: Brand): MailMessage {
  return {
    to,
    kind: 'password_changed',
    subject: `Your ${brand.brandName} password was changed`,
    text: [
      'Hello,',
      '',
      `The password of your ${brand.brandName} account was just changed, and your other sessions were signed out.`,
      '',
      `If this was not you, reset your password at once and contact us at ${brand.supportEmail}.`,
      '',
      `— The ${brand.brandName} team`,
    ].join('\n'),
  };
}

export function teamInvitationMail(
  to: string,
  link: string,
  invitation: { teamName: string; inviterName: string; role: 'admin' | 'member'; expiresAt: number },
  brand: Brand,
): MailMessage {
  const as = invitation.role === 'admin' ? 'an admin' : 'a member';
  return {
    to,
    kind: 'team_invitation',
    subject: `${invitation.inviterName} invited you to ${invitation.teamName} on ${brand.brandName}`,
    text: [
      'Hello,',
      '',
      `${invitation.inviterName} invited you to join the team "${invitation.teamName}" on ${brand.brandName} as ${as}.`,
      `Open this link to accept. It works once and expires on ${new Date(invitation.expiresAt).toISOString().slice(0, 10)} (UTC):`,
      '',
      link,
      '',
      `You can sign in there, or create an account with this address (${to}) if you have none yet.`,
      'If you do not know this team, ignore this e-mail.',
      '',
      `— The ${brand.brandName} team (${brand.supportEmail})`,
    ].join('\n'),
  };
}

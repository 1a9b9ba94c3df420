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
    // Names and team names are typed by people: they go in the body as plain text, never in the
    // subject, where a mail client shows them as the sender's own words.
    subject: `You are invited to join a team on ${brand.brandName}`,
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

/**
 * To each side of an ownership transfer (decisions.md, "Team money and roles"). Subjects carry no
 * text anyone typed; the team's name is in the body only.
 */
export function ownershipTransferredMail(
  to: string,
  transfer: { teamName: string; formerName: string; newName: string; recipient: 'former' | 'new'; billingMoved: boolean; subscriptionUrl: string },
  brand: Brand,
): MailMessage {
  const { teamName, formerName, newName } = transfer;
  const toNew = transfer.recipient === 'new';
  const lines = toNew
    ? [`${formerName} handed the ownership of the team "${teamName}" on ${brand.brandName} to you. You now manage its subscription: plan changes, cancelling, the card and the billing page, from your subscription page:`]
    : [`You handed the ownership of the team "${teamName}" on ${brand.brandName} to ${newName}. You are now an admin of the team; its subscription is managed by ${newName} from now on, and your own subscription page shows your own plan again:`];
  lines.push('', transfer.subscriptionUrl);
  if (transfer.billingMoved) {
    lines.push(
      '',
      toNew
        ? `The card on file for the team's subscription was added by the former owner, ${formerName}, and is charged until you replace it. You can replace it with your own on the billing page.`
        : `The card on file for the team's subscription was added by you, the former owner, and is charged until ${newName} replaces it. ${newName}, the new owner, can replace it on the billing page.`,
    );
  }
  lines.push('', `If you did not expect this, contact us at ${brand.supportEmail}.`, '', `— The ${brand.brandName} team`);
  return {
    to,
    kind: 'ownership_transferred',
    subject: toNew ? `You now own a team on ${brand.brandName}` : `You handed over your team on ${brand.brandName}`,
    text: ['Hello,', '', ...lines].join('\n'),
  };
}

/** A passkey was added to the account: the owner hears of it, in case it was not them. */
export function passkeyAddedMail(to: string, passkey: { name: string; addedAt: number; profileUrl: string }, brand: Brand): MailMessage {
  return {
    to,
    kind: 'passkey_added',
    // The passkey's name is typed by a person: in the body as plain text, never in the subject.
    subject: `A passkey was added to your ${brand.brandName} account`,
    text: [
      'Hello,',
      '',
      `A passkey named "${passkey.name}" was added to your ${brand.brandName} account on ${new Date(passkey.addedAt).toUTCString()}. It can now sign in to your account.`,
      '',
      `If this was you, there is nothing to do. If not, delete it from your profile at once, change your password and contact us at ${brand.supportEmail}:`,
      '',
      passkey.profileUrl,
      '',
      `— The ${brand.brandName} team`,
    ].join('\n'),
  };
}

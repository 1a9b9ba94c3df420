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

export function emailVerificationMail(to: string, link: string, brand: Brand): MailMessage {
  return {
    to,
    kind: 'email_verification',
    subject: `Verify your email address for ${brand.brandName}`,
    text: [
      'Hello,',
      '',
      `Please confirm that ${to} is the address of your ${brand.brandName} account by opening this link. It works once and expires in 24 hours:`,
      '',
      link,
      '',
      'Until then you can use your account, but not create API keys or join or invite to a team.',
      'If you did not create this account, ignore this e-mail.',
      '',
      `— The ${brand.brandName} team (${brand.supportEmail})`,
    ].join('\n'),
  };
}

export function passwordChangedMail(to: string, brand: Brand, reset?: { apiKeysRevoked: number }): MailMessage {
  return {
    to,
    kind: 'password_changed',
    subject: `Your ${brand.brandName} password was changed`,
    text: [
      'Hello,',
      '',
      reset
        ? `The password of your ${brand.brandName} account was just reset with a link from an e-mail, and every session was signed out.`
        : `The password of your ${brand.brandName} account was just changed, and your other sessions were signed out.`,
      ...(reset
        ? [
            '',
            reset.apiKeysRevoked > 0
              ? `Your API keys (${reset.apiKeysRevoked}) were revoked too: whoever reset the password could have read them. Make new ones on your profile where you need them.`
              : 'Had you any API keys, they would have been revoked too; you have none.',
          ]
        : []),
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

/** A sign-in from a browser or device the account had not used (decisions.md, "Alerts and recovery"). */
export function newDeviceSignInMail(to: string, device: { userAgent: string; ip: string; at: number; sessionsUrl: string }, brand: Brand): MailMessage {
  return {
    to,
    kind: 'new_device_sign_in',
    subject: `New sign-in to your ${brand.brandName} account`,
    text: [
      'Hello,',
      '',
      `Your ${brand.brandName} account was just signed in to from a browser or device it had not used before:`,
      '',
      `  When: ${new Date(device.at).toISOString().replace('T', ' ').slice(0, 16)} (UTC)`,
      `  Browser: ${device.userAgent.slice(0, 200) || 'unknown'}`,
      `  Address: ${device.ip}`,
      '',
      'If this was you, there is nothing to do. If not, end that session under "Sessions and devices" and change your password:',
      '',
      device.sessionsUrl,
      '',
      `— The ${brand.brandName} team (${brand.supportEmail})`,
    ].join('\n'),
  };
}

/** A second factor was turned off: the account is back to a password alone. */
export function secondFactorOffMail(to: string, profileUrl: string, brand: Brand): MailMessage {
  return {
    to,
    kind: 'second_factor_off',
    subject: `Two-step sign-in was turned off on your ${brand.brandName} account`,
    text: [
      'Hello,',
      '',
      `Two-step sign-in with an authenticator app was just turned off on your ${brand.brandName} account, and its recovery codes no longer work.`,
      '',
      `If this was not you, change your password at once, turn it on again on your profile, and contact us at ${brand.supportEmail}:`,
      '',
      profileUrl,
      '',
      `— The ${brand.brandName} team`,
    ].join('\n'),
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

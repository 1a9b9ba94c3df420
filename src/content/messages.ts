/**
 * Every text the user sees, in one catalogue. Wording taken from the product spec is a
 * requirement, word for word; tests import these rather than retyping them. A section per screen
 * or part, each its own export, read through the namespace (`import * as messages`). The sections
 * of a single page live in messages/, one file each, so that webpack puts them in that page's
 * chunk rather than in the JavaScript of every page.
 */
import { pleaseWait } from './messages/wait';
export { landing } from './messages/landing';
export { support } from './messages/support';
export { login } from './messages/login';
export { secondStep } from './messages/secondStep';
export { register } from './messages/register';
export { forgotPassword } from './messages/forgot-password';
export { resetPassword } from './messages/reset-password';
export { dashboard } from './messages/dashboard';
export { subscription } from './messages/subscription';
export { profile } from './messages/profile';
export { team, invitation } from './messages/team';
export { link } from './messages/link';
export { credentials } from './messages/credentials';
export { passkeys } from './messages/passkeys';
export { guide } from './messages/guide';
export { usage } from './messages/usage';
export { functions } from './messages/functions';
export { security } from './messages/security';

export const layout = {
  skipToContent: 'Skip to content',
  homeLink: (brand: string) => `${brand} home`,
  mainNav: 'Main',
  dashboard: 'Dashboard',
  usage: 'Usage',
  subscription: 'Subscription',
  profile: 'Profile',
  team: 'Team',
  functions: 'Functions',
  welcome: (fullName: string) => `Welcome, ${fullName}`,
  logout: 'Logout',
  login: 'Login',
  signUp: 'Sign Up',
  darkMode: 'Dark mode',
  menu: 'Menu',
} as const;

export const footer = {
  tagline: 'AI help for formulas, analysis and answers, right inside your spreadsheet.',
  product: 'Product',
  features: 'Features',
  getAddOn: 'Get Add-on',
  pricing: 'Pricing',
  supportAndLegal: 'Support & Legal',
  support: 'Support',
  privacy: 'Privacy Policy',
  terms: 'Terms of Service',
  contact: 'Contact',
  contactLead: 'Questions? Write to us at',
  copyright: (year: number, brand: string) => `© ${year} ${brand}. All rights reserved.`,
  opensInNewTab: '(opens in a new tab)',
} as const;

export const legal = {
  lastUpdated: (date: string) => `Last updated ${date}`,
  contents: 'Contents',
} as const;

export const notFound = {
  title: 'Page not found',
  code: '404',
  heading: 'Oops! Page not found',
  lead: 'The page you are looking for does not exist or has moved.',
  home: 'Return to Home',
} as const;

export const api = {
  error: (statusText: string) => `API Error: ${statusText}`,
  network: 'Network error: Unable to connect to the server. Please check your internet connection.',
} as const;

export const auth = {
  invalidUser: 'Invalid user data received',
  loggedOut: 'Logged out',
  loggedOutText: 'You have been signed out.',
  sessionEnded: 'Session ended',
  sessionEndedText: 'Please sign in again.',
  welcomeBack: 'Welcome back!',
  welcomeBackText: "You've been successfully logged in.",
  accountCreated: 'Account created!',
  accountCreatedText: 'Welcome aboard. Your Free plan is ready to use.',
  loginFailed: 'Login failed',
  registrationFailed: 'Registration failed',
  networkFailure: 'Unable to connect to the server. Please check your internet connection and try again.',
  loginUnauthorized: 'Invalid email or password. Please try again.',
  loginBadRequest: 'Invalid request. Please check your login details.',
  loginOther: 'Please check your email and password.',
  registerConflict: 'An account with this email already exists. Please try logging in instead.',
  usernameTaken: 'This username is already taken. Please choose another one.',
  registerBadRequest: 'Invalid registration details. Please check your information and try again.',
  registerOther: 'Please try again or contact support.',
  secondStepFailed: 'Verification failed',
  secondStepExpired: 'This sign-in has expired or had too many tries. Please sign in again.',
  invalidCode: 'That code is not valid. Please try again.',
  tooManyAttempts: (seconds: number) => `Too many attempts. ${pleaseWait(seconds)}`,
} as const;

/** Verified email: the banner of signed-in pages and the /verify-email page (decisions.md, "Verified email"). */
export const verifyEmail = {
  title: 'Verify your email',
  lead: 'Confirming the email address of your account.',
  bannerText: (email: string) => `Please verify your email address. We sent a link to ${email}.`,
  resend: 'Resend link',
  resendBusy: 'Sending...',
  sent: 'We sent a new link. It works for 24 hours.',
  verifying: 'Verifying your email address...',
  verifiedTitle: 'Email verified',
  verifiedText: 'Thank you: your email address is verified. You can now create API keys and invite or join a team.',
  failedTitle: 'Could not verify your email address',
  missingToken: 'This verification link is incomplete. Sign in and use "Resend link" to get a new one.',
  toDashboard: 'Go to the dashboard',
  toLogin: 'Sign in',
  /** The profile's line about the address. */
  statusLabel: 'Email status',
  verified: 'Verified',
  unverified: 'Not verified',
} as const;

export const plan = {
  active: 'Active',
  inactive: 'Inactive',
  unlimited: 'Unlimited',
  /** A downgrade waiting for the end of the paid period (`cancel_at_period_end`). */
  scheduledChange: (plan: string, date: string) => `Your plan changes to ${plan} on ${date}.`,
} as const;

export const routeError = {
  heading: 'Something went wrong',
  lead: 'This page could not be shown. Reloading usually fixes it.',
  reload: 'Reload page',
} as const;

export const loading = 'Loading…';

/** Replaces `{name}` tokens in catalogue texts that the content modules keep as templates. */
export function fillTokens(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (token, name: string) => values[name] ?? token);
}

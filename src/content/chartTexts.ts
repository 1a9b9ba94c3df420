import { api, auth, credentials, forgotPassword, functions, guide, invitation, link, login, passkeys, profile, register, secondStep, security, subscription, support, team, usage } from './messages';
import type { Sections } from './say';

/**
 * Every section of the catalogue a chart names a text in: what the toasts resolve in. Only the
 * toast region (its own chunk, loaded after the page) imports it, so no page carries another's texts.
 */
export const chartTexts: Sections = { api, auth, credentials, forgotPassword, functions, guide, invitation, link, login, passkeys, profile, register, secondStep, security, subscription, support, team, usage };

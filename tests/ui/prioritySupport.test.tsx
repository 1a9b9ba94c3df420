import { screen } from '@testing-library/react';
import * as messages from '../../src/content/messages';
import { ada, signedInApi } from '../helpers/fakeApi';
import { renderApp } from '../helpers/renderApp';

/**
 * The plan cards' "Priority support" (Professional and Team) and "Community support" (Free):
 * the support page tells a signed-in person the response target of their plan (decisions.md,
 * "Teams: priority support").
 */
const t = messages.support;

let api: ReturnType<typeof signedInApi>;
afterEach(() => api.restore());
beforeEach(() => localStorage.clear());

describe('the support page names the response target of the plan', () => {
  it.each([
    ['professional', t.priorityResponseText('Professional')],
    ['team', t.priorityResponseText('Team')],
    ['free', t.responseText],
  ] as const)('for a %s account: %s', async (plan, text) => {
    api = signedInApi({}, { ...ada, subscription_plan: plan });
    renderApp('/support');
    expect(await screen.findByText(text)).toBeInTheDocument();
    const other = plan === 'free' ? /4 business hours/ : t.responseText;
    expect(screen.queryByText(other)).not.toBeInTheDocument();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import * as messages from '../../src/content/messages';
import { PLAN_OFFERS } from '../../src/content/plans';
import type { RouteObject } from 'react-router-dom';
import { routes } from '../../src/app/routes';
import { APP_PATHS, isAppPath } from '../../contract/appPaths';
import { signedInApi } from '../helpers/fakeApi';
import { renderApp } from '../helpers/renderApp';

describe('public pages', () => {
  it('shows the landing page: hero calls, features, plans, testimonials and the closing call', async () => {
    renderApp('/', { marketplaceUrl: 'https://marketplace.example/sheetmind' });
    const tryFree = await screen.findByRole('link', { name: messages.landing.tryFree });
    expect(tryFree).toHaveAttribute('href', '/register');
    const addOn = screen.getAllByRole('link', { name: new RegExp(`^${messages.landing.getAddOn}`) });
    expect(addOn.map((a) => a.getAttribute('href'))).toContain('https://marketplace.example/sheetmind');
    expect(screen.getAllByText(/over 10,000 users/).length).toBeGreaterThan(0);
    for (const feature of messages.landing.features) {
      expect(screen.getByRole('heading', { name: feature.title })).toBeInTheDocument();
    }
    const cards = screen.getAllByRole('article');
    expect(cards).toHaveLength(3);
    PLAN_OFFERS.forEach((plan, i) => {
      const card = within(cards[i]!);
      expect(card.getByRole('heading', { name: plan.name })).toBeInTheDocument();
      expect(card.getByText(`$${plan.priceUsd}`)).toBeInTheDocument();
      plan.features.forEach((feature) => expect(card.getByText(feature)).toBeInTheDocument());
      expect(card.queryByText(messages.landing.mostPopular) !== null).toBe(plan.id === 'professional');
    });
    expect(screen.getAllByRole('img', { name: messages.landing.rating(5) }).length).toBeGreaterThanOrEqual(3);
    expect(screen.getByRole('link', { name: messages.landing.startTrial })).toHaveAttribute('href', '/register');
  });

  it('names the brand once in the title, and says in the hero that Get Add-on opens a new tab, as the footer does', async () => {
    renderApp('/', { brandName: 'Acme', marketplaceUrl: 'https://marketplace.example/sheetmind' });
    const hero = await screen.findByRole('region', { name: messages.landing.heroTitle });
    const name = `${messages.landing.getAddOn} ${messages.footer.opensInNewTab}`;
    expect(within(hero).getByRole('link', { name })).toHaveAttribute('target', '_blank');
    expect(within(screen.getByRole('contentinfo')).getByRole('link', { name })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe(messages.landing.title('Acme')));
    expect(document.title.split('Acme')).toHaveLength(2);
  });

  it('sends a signed-in visitor where the calls mean: the free ones to the dashboard, the plans to the subscription page', async () => {
    const api = signedInApi({});
    try {
      renderApp('/');
      await screen.findByRole('button', { name: messages.layout.logout });
      expect(screen.getByRole('link', { name: messages.landing.tryFree })).toHaveAttribute('href', '/dashboard');
      expect(screen.getByRole('link', { name: messages.landing.startTrial })).toHaveAttribute('href', '/dashboard');
      for (const plan of PLAN_OFFERS) {
        expect(screen.getByRole('link', { name: messages.landing.choosePlan(plan.name) })).toHaveAttribute('href', '/subscription');
      }
    } finally {
      api.restore();
      localStorage.clear();
    }
  });

  it('shows the signed-out top bar and the footer links', async () => {
    renderApp('/', { supportEmail: 'help@acme.example', brandName: 'Acme' });
    const nav = await screen.findByRole('navigation', { name: messages.layout.mainNav });
    expect(within(nav).getByRole('link', { name: messages.layout.login })).toHaveAttribute('href', '/login');
    expect(within(nav).getByRole('link', { name: messages.layout.signUp })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: messages.layout.homeLink('Acme') })).toHaveAttribute('href', '/');
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('link', { name: messages.footer.pricing })).toHaveAttribute('href', '/subscription');
    expect(within(footer).getByRole('link', { name: messages.footer.privacy })).toHaveAttribute('href', '/privacy');
    expect(within(footer).getByRole('link', { name: messages.footer.terms })).toHaveAttribute('href', '/terms');
    expect(within(footer).getByRole('link', { name: messages.footer.support })).toHaveAttribute('href', '/support');
    expect(within(footer).getByRole('link', { name: 'help@acme.example' })).toHaveAttribute('href', 'mailto:help@acme.example');
    expect(within(footer).getByText(messages.footer.copyright(new Date().getFullYear(), 'Acme'))).toBeInTheDocument();
  });

  it.each([
    ['/privacy', 'Privacy Policy'],
    ['/terms', 'Terms of Service'],
  ])('shows %s with the brand and both mailboxes as links', async (path, title) => {
    renderApp(path, { brandName: 'Acme', supportEmail: 'help@acme.example', generalEmail: 'hi@acme.example' });
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
    const main = screen.getByRole('main');
    expect(within(main).getAllByRole('link', { name: 'help@acme.example' })[0]).toHaveAttribute('href', 'mailto:help@acme.example');
    expect(within(main).getAllByRole('link', { name: 'hi@acme.example' })[0]).toHaveAttribute('href', 'mailto:hi@acme.example');
    expect(main.textContent).not.toMatch(/\{\w+\}/);
    expect(main.textContent).toContain('Acme');
  });

  it('states the policies the spec requires', async () => {
    renderApp('/terms');
    const terms = (await screen.findByRole('main')).textContent ?? '';
    expect(terms).toContain('typically responds within 24 hours on business days');
    expect(terms).toMatch(/amount you paid us for the Service in the 12 months preceding/);
  });

  it('shows the support page with its notice, form and side panel', async () => {
    renderApp('/support');
    expect(await screen.findByRole('heading', { level: 1, name: messages.support.heading })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: messages.support.signInLink })).toHaveAttribute('href', '/login');
    for (const label of ['Title', 'Description', 'Email', 'Telephone']) {
      expect(screen.getByLabelText(new RegExp(`^${label}`))).toBeInTheDocument();
    }
    expect(within(screen.getByRole('main')).getByRole('link', { name: messages.support.faq[1]!.link })).toHaveAttribute(
      'href',
      '/privacy',
    );
  });

  it('shows the 404 page for any other path and logs the path', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { name: '404 Oops! Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/');
    expect(log).toHaveBeenCalledWith(expect.any(String), '/no/such/page');
    log.mockRestore();
  });
});

describe('the paths the server answers with 200', () => {
  /** Every path of the route tree that renders a page, the catch-all aside. */
  function pagePaths(routes: RouteObject[], base = ''): string[] {
    return routes.flatMap((route) => {
      if (route.path === '*') return [];
      const path = route.path === undefined ? base : route.path.startsWith('/') ? route.path : `${base.replace(/\/$/, '')}/${route.path}`;
      const own = route.index || (route.path !== undefined && !route.children) ? [path || '/'] : [];
      return [...own, ...pagePaths(route.children ?? [], path)];
    });
  }

  it('are exactly the pages of the route tree, so a page the server answers with 404 is the not-found page', () => {
    expect([...pagePaths(routes)].sort()).toEqual([...APP_PATHS].sort());
    expect(isAppPath('/Dashboard/')).toBe(true);
    expect(isAppPath('/dashboard/extra')).toBe(false);
  });
});

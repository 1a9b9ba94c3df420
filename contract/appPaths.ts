/**
 * The paths the SPA has a page for (src/app/routes.tsx; a test keeps the two in step). Every other
 * path renders the not-found page, and the server answers it with 404 so that crawlers and link
 * checkers see a missing page as missing (server/plugins/web.ts).
 */
export const APP_PATHS = [
  '/',
  '/privacy',
  '/terms',
  '/support',
  '/login',
  '/register',
  '/forgot-password',
  '/reset-password',
  '/verify-email',
  '/link',
  '/dashboard',
  '/usage',
  '/subscription',
  '/profile',
  '/team',
  '/invite/:token',
  '/guide',
  '/functions',
] as const;

/** The pages with a `:parameter` segment, which matches any one segment. */
export const PARAM_PATHS = APP_PATHS.filter((page) => page.includes('/:'));

const PARAM_PAGES = PARAM_PATHS.map((page) => new RegExp(`^${page.replace(/:[^/]+/g, '[^/]+')}$`));

const known = new Set<string>(APP_PATHS);

/** Whether `pathname` is a page of the SPA, matched as React Router does: case-insensitive, a trailing slash ignored. */
export function isAppPath(pathname: string): boolean {
  const normalized = pathname.toLowerCase().replace(/\/+$/, '');
  return known.has(normalized || '/') || PARAM_PAGES.some((page) => page.test(normalized));
}

/**
 * The pages whose first render needs no call but those their first script sends while the app's
 * code loads (the session check and the page's own, src/firstCalls.ts). Their HTML does not name
 * the API client's scripts (build/prerender.ts), some 20 KB that would share a phone's network with
 * the page's own; the app loads the client once the page is drawn. Every other page the app draws
 * calls at once itself (a link's code, an e-mail's token), and its HTML names them.
 */
export const DRAWN_FROM_EARLY_CALLS = ['/dashboard', '/subscription', '/profile', '/team', '/usage', '/functions', '/guide'] as const;

/** Whether `pathname` is one of DRAWN_FROM_EARLY_CALLS. */
export const isDrawnFromEarlyCalls = (pathname: string): boolean => (DRAWN_FROM_EARLY_CALLS as readonly string[]).includes(pathname);

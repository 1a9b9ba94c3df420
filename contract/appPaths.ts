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

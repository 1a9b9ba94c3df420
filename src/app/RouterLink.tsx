import type { AnchorHTMLAttributes, Ref } from 'react';
import { useHref, useLinkClickHandler, useLocation } from 'react-router-dom';

interface Props extends AnchorHTMLAttributes<HTMLAnchorElement> {
  to: string;
  /** History state for the route reached (e.g. where to return after signing in). */
  state?: unknown;
  ref?: Ref<HTMLAnchorElement>;
}

/**
 * A link to a route of the app, followed without a reload. react-router's own <Link> and
 * <NavLink> carry its framework-mode prefetching and view transitions, a fifth of the router's
 * weight on every page, none of which this app uses.
 */
export function RouterLink({ to, state, onClick, target, ...anchor }: Props) {
  const followLink = useLinkClickHandler<HTMLAnchorElement>(to, { target, state });
  return (
    <a
      {...anchor}
      href={useHref(to)}
      target={target}
      onClick={(event) => {
        onClick?.(event);
        if (!event.defaultPrevented) followLink(event);
      }}
    />
  );
}

/** A RouterLink marked `aria-current="page"` while its route (or one below it) is shown. */
export function NavLink({ to, ...props }: Props) {
  const { pathname } = useLocation();
  const current = pathname === to || pathname.startsWith(`${to}/`);
  return <RouterLink to={to} aria-current={current ? 'page' : undefined} {...props} />;
}

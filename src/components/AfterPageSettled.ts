import { startTransition, useEffect, useState, type ReactNode } from 'react';
import { pageSettled } from '../lib/pageSettled';

/**
 * Renders `children` once the page has drawn what it first shows (`pageSettled`), or at once when
 * `now` (a change asks for them first). Only this component renders again then, and in a transition,
 * which React renders in slices of a few milliseconds: a state of the page itself would draw the
 * whole page again in one task (about 100 ms on /team at 4x CPU).
 */
export function AfterPageSettled({ now = false, children }: { now?: boolean; children: ReactNode }): ReactNode {
  const [isSettled, setSettled] = useState(false);
  useEffect(() => {
    let mounted = true;
    void pageSettled().then(() => mounted && startTransition(() => setSettled(true)));
    return () => {
      mounted = false;
    };
  }, []);
  return now || isSettled ? children : null;
}

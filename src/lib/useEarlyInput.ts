import { useEffect, useRef, useState, type RefObject } from 'react';

/**
 * What a visitor did on a prerendered form before the app took it over: typed, let a password
 * manager fill it, maybe sent it. React adopts the inputs as they are without reading them, so the
 * form's state would still hold its empty start, and its next render would wipe what is on screen.
 * Once the app has taken over, `seed` gets every field of `names` that holds something (in one go,
 * as a password manager fills them), and a submit the page held back (src/appPage.ts) is sent again
 * once the seeded values have rendered, so it sends what the fields show.
 *
 * Passive effects run before React renders again, and children's before the parent's that marks
 * the page as taken over (src/app/AppProviders.tsx): nothing typed or sent slips between the two.
 */
export function useEarlyInput<Name extends string>(
  form: RefObject<HTMLFormElement | null>,
  names: readonly Name[],
  seed: (values: Partial<Record<Name, string>>) => void,
): void {
  const [resubmit, setResubmit] = useState(false);
  const taken = useRef(false);
  useEffect(() => {
    // Once, when the app takes over the page: afterwards the fields show the form's own values.
    if (taken.current) return;
    taken.current = true;
    const element = form.current;
    if (!element) return;
    const typed: Partial<Record<Name, string>> = {};
    for (const name of names) {
      const field = element.elements.namedItem(name);
      if ((field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) && field.value) typed[name] = field.value;
    }
    if (Object.keys(typed).length > 0) seed(typed);
    if (window.heldSubmit === element) {
      delete window.heldSubmit;
      // A render of its own on purpose: the submit must see the seeded values, which only a
      // render hands to the form's handlers.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setResubmit(true);
    }
  }, [form, names, seed]);
  useEffect(() => {
    if (resubmit) form.current?.requestSubmit();
  }, [resubmit, form]);
}

import { createContext, useContext, useEffect } from 'react';
import { useRuntimeConfig } from './useRuntimeConfig';

/** The prerender provides one to learn the page's title, which effects would only set in a browser. */
export const PageTitleSink = createContext<((title: string) => void) | null>(null);

/**
 * Sets the document title to "{page} · {brand}" (or the brand alone) while the page is shown;
 * `namesBrand` says the page's title already names the brand, so it stands alone.
 */
export function usePageTitle(page?: string, { namesBrand = false } = {}): void {
  const { brandName } = useRuntimeConfig();
  const title = page ? (namesBrand ? page : `${page} · ${brandName}`) : brandName;
  // Told during render, which only the prerender's one-off render listens to.
  useContext(PageTitleSink)?.(title);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

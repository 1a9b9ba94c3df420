import { useEffect } from 'react';
import { useRuntimeConfig } from './useRuntimeConfig';

/** Sets the document title to "{page} · {brand}" (or the brand alone) while the page is shown. */
export function usePageTitle(page?: string): void {
  const { brandName } = useRuntimeConfig();
  useEffect(() => {
    document.title = page ? `${page} · ${brandName}` : brandName;
  }, [page, brandName]);
}

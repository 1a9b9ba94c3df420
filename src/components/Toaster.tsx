import { useEffect, useState, type ComponentType } from 'react';
import type { NotifyParams } from '../../machines/shared/notify';
import { pageSettled } from '../lib/pageSettled';

type ToastRegionModule = typeof import('./ToastRegion');

let region: Promise<ToastRegionModule> | undefined;
let asked!: () => void;
/** Resolved once a toast is shown, or the region asked for otherwise. */
const regionAsked = new Promise<void>((resolve) => (asked = resolve));

/**
 * The toaster and its region are a chunk of their own (about a tenth of the first page's JS),
 * loaded once the page has drawn what it first shows (`pageSettled`), or with the first toast: no
 * page needs a toast to render, and a phone's network is better spent on the page's data.
 */
const loadRegion = () => {
  asked();
  return (region ??= import(/* webpackChunkName: "toaster" */ './ToastRegion'));
};

/**
 * What every chart's `notify` action does in the app. A toast of the same kind and title as one on
 * screen replaces it (its words brought up to date) instead of stacking a copy under it: four
 * refusals in a row show one "Too many attempts", not four.
 */
export function showToast({ type, title, description }: NotifyParams): void {
  void loadRegion().then(({ toaster, word }) => {
    const heading = word(title);
    toaster.create({ id: `${type}:${heading}`, type, title: heading, description: description && word(description), closable: true });
  });
}

/** The `notify` effect every chart is handed by its view (src/lib/chart.ts). */
export const toastEffect = (_: unknown, params: NotifyParams): void => showToast(params);

/**
 * The toast region (a polite live region, there before any toast once the page is drawn, or with
 * the first toast when one comes sooner). Rendered once the page is in the browser: it is placed
 * with inline styles, which the CSP refuses in HTML (React sets them through the CSSOM, which it
 * allows), so the prerender leaves it out.
 */
export function Toaster() {
  const [Region, setRegion] = useState<ComponentType | null>(null);
  useEffect(() => {
    let mounted = true;
    void Promise.race([pageSettled(), regionAsked])
      .then(loadRegion)
      .then(({ ToastRegion }) => mounted && setRegion(() => ToastRegion));
    return () => {
      mounted = false;
    };
  }, []);
  return Region ? <Region /> : null;
}

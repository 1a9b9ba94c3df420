/**
 * The browser's local storage, or undefined where it is disabled (privacy settings): nothing is
 * then kept beyond this page view (the color mode follows the system again, a session ends with
 * the page).
 */
export function localStore(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/** "Please wait 2 minutes and try again.", rounded up to whole minutes (at least 1), for a Retry-After in seconds. */
export function pleaseWait(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`;
}

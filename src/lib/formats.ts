/**
 * Numbers and dates in the user's locale, each through one formatter made once per set of options:
 * making an Intl formatter is most of the cost of formatting (`toLocaleDateString` with options
 * makes one on every call), and a table or a chart formats a few hundred values as it is drawn, a
 * long task of its own on a slow phone. What each shows is what `toLocaleString` would.
 */

const dateFormats = new Map<string, Intl.DateTimeFormat>();
let numberFormat: Intl.NumberFormat | undefined;

/** The options `Date.prototype.toLocaleString()` uses: the date and the time, in numbers. */
export const DATE_AND_TIME: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' };

/** The user's locale's formatter for these options (the same one on every call). */
export function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify(options);
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, options);
    dateFormats.set(key, format);
  }
  return format;
}

/** A count in the user's locale: 1,000 in English, 1.000 in German. */
export function formatNumber(value: number): string {
  numberFormat ??= new Intl.NumberFormat(undefined);
  return numberFormat.format(value);
}

/**
 * Has the browser load the locale's date and number data ahead, while the app's code is on its way
 * (src/firstCalls.ts, in a worker): the first Intl formatter a page makes reads it, some 25 ms of a
 * real core and 90 to 170 ms of a phone's (Chromium at 4x CPU), in the middle of the first render
 * of the page's data. The formatters made after it take about 2 ms each.
 */
export function loadLocaleData(): void {
  dateFormat(DATE_AND_TIME).format(0);
  formatNumber(0);
}

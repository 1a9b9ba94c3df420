/**
 * Hands a text the app fetched to the browser as a file download. A CSV gets its byte order mark
 * back: decoding the answer as text drops it, and spreadsheet applications need it to read UTF-8.
 */
export function saveFile(text: string, filename: string, type: 'text/csv' | 'application/json' | 'text/plain'): void {
  const parts = type === 'text/csv' ? ['\uFEFF', text.replace(/^\uFEFF/, '')] : [text];
  const url = URL.createObjectURL(new Blob(parts, { type: `${type};charset=utf-8` }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

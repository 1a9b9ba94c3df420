/**
 * Resolves when `read()` answers `expected`: for what the server does just after it answers (a
 * credential's last use, a query's abandoned tokens). Between readings it yields to the event loop
 * rather than sleeping a guessed time; after `withinMs` it fails, showing the last reading.
 */
export async function eventually<T>(read: () => Promise<T>, expected: T, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
    last = await read();
  }
  expect(last).toEqual(expected);
}

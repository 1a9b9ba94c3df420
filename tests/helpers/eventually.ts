/**
 * Reads until `read()` answers what `done` accepts: for what the server does just after it answers
 * (a credential's last use, a mail through the queue). Between readings it yields to the event loop
 * rather than sleeping a guessed time; after `withinMs` it answers the last reading, so the test's
 * own assertion says what was there instead.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, withinMs = 5_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

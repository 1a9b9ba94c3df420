/**
 * Resolves in a task of its own: what is awaited after it runs once the browser has had its turn
 * to paint and to handle input. Starting the app is cut into such steps, since on a slow phone
 * evaluating all its code at once holds the page for a few hundred milliseconds.
 */
export const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

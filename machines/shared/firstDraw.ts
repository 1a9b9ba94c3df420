/**
 * How long a page's first draw waits for the answers that decide what it has above the rest (the
 * dashboard's get-started card and warning, /usage's Professional offer in place of the figures),
 * showing its heading and a spinner meanwhile: drawn before them, the rest was pushed down or up
 * when they came (issue 40). They are usually in before the page starts (the first calls,
 * src/firstCalls.ts); a slower answer finds the page's placeholders after this long.
 */
export const FIRST_DRAW_WAIT_MS = 1000;

import { loadLocaleData } from './formats';

/**
 * Run as a worker of the page (src/firstCalls.ts): the locale's date and number data it loads is
 * the renderer's, shared by the page's own thread, so the page's first formatter finds it loaded.
 */
loadLocaleData();
close();

import { watchSystemColorMode } from './lib/colorMode';
import { startInspector } from './lib/inspector';
import { nextTask } from './lib/nextTask';
import { readCspNonce, readRuntimeConfig } from '../machines/shared/runtimeConfig';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

/**
 * The app's code is evaluated in steps, each in a task of its own, so that none holds a slow phone's
 * main thread for long: Chakra's code and the theme, then its system (tokens and CSS engine), React
 * DOM, the charts, then React's components and the page (mountApp). An eager import adds no request:
 * the modules are in this script already, and only run when imported.
 */
const STEPS = [
  () => import(/* webpackMode: "eager" */ './app/theme'),
  () => import(/* webpackMode: "eager" */ './app/system'),
  () => import(/* webpackMode: "eager" */ 'react-dom/client'),
  () => import(/* webpackMode: "eager" */ '../machines/auth/auth.machine'),
];

async function start(root: HTMLElement): Promise<void> {
  await startInspector();
  for (const step of STEPS) {
    await nextTask();
    await step();
  }
  await nextTask();
  const { mountApp } = await import(/* webpackMode: "eager" */ './app/mountApp');
  await nextTask();
  await mountApp(root, readRuntimeConfig(), readCspNonce());
  watchSystemColorMode();
}

void start(container);

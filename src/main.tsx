import { watchSystemColorMode } from './lib/colorMode';
import { startInspector } from './lib/inspector';
import { nextTask } from './lib/nextTask';
import { readCspNonce, readRuntimeConfig } from './lib/runtimeConfig';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

/**
 * The app's code is evaluated in steps, each in a task of its own: Chakra's system first (its
 * tokens), then React, the router and the components, then the page (mountApp). An eager import
 * adds no request: the modules are in this script already, and only run when imported.
 */
async function start(root: HTMLElement): Promise<void> {
  await startInspector();
  await nextTask();
  await import(/* webpackMode: "eager" */ './app/system');
  await nextTask();
  const { mountApp } = await import(/* webpackMode: "eager" */ './app/mountApp');
  await nextTask();
  await mountApp(root, readRuntimeConfig(), readCspNonce());
  watchSystemColorMode();
}

void start(container);

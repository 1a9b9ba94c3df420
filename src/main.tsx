import { mountApp } from './app/mountApp';
import { watchSystemColorMode } from './lib/colorMode';
import { startInspector } from './lib/inspector';
import { readCspNonce, readRuntimeConfig } from './lib/runtimeConfig';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

void startInspector()
  .then(() => mountApp(container, readRuntimeConfig(), readCspNonce()))
  .then(watchSystemColorMode);

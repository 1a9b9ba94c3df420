import { execSync } from 'node:child_process';
import fs from 'node:fs';
import { CHROMIUM } from '../helpers/browser';

/** Browser tests need the system Chromium and a production build of the SPA; get both if missing. */
export default function globalSetup(): void {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`\n${CHROMIUM} is missing: installing Debian's chromium package…`);
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', {
      stdio: 'inherit',
    });
  }
  if (!fs.existsSync('dist/web/index.html')) {
    console.log('\nNo production build in dist/web: building it…');
    execSync('npx webpack --mode production', { stdio: 'inherit' });
  }
}

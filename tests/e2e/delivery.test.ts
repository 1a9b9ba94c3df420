import http from 'node:http';
import { DRAWN_PATHS } from '../../build/prerender';
import { PARAM_PATHS } from '../../contract/appPaths';
import { PRERENDERED_PAGES } from '../../src/app/routes';
import { useServerAndBrowser, watchPage } from '../helpers/browser';

jest.setTimeout(90_000);

/** How the real server delivers the build: prerendered pages, runtime config, compression, caching. */
const BRAND = 'Acme <Sheets>';
const live = useServerAndBrowser({ BRAND_NAME: BRAND, SUPPORT_EMAIL: 'help@acme.example' });

/** Paths the plain shell is sent for: each page with a parameter, the parameter filled in. */
const SHELL_PATHS = PARAM_PATHS.map((page) => page.replace(/:[^/]+/g, 'a-parameter'));

const get = (path: string, encoding = 'br, gzip') => fetch(live.server.baseUrl + path, { headers: { 'accept-encoding': encoding } });

describe('delivery of the web app', () => {
  it.each(PRERENDERED_PAGES.map((page) => page.path))('sends %s prerendered, configured, compressed and uncached', async (path) => {
    const res = await get(path);
    const html = await res.text();
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(html).toMatch(/<div id="root"><div/);
    expect(html).toContain('Acme &#60;Sheets&#62;');
    expect(html).not.toContain('%%');
    const nonce = /<meta name="csp-nonce" content="([0-9a-f]+)">/.exec(html)?.[1];
    expect(res.headers.get('content-security-policy')).toContain(`'nonce-${nonce}'`);
    // The color-mode script, inline, runs with the response's script nonce.
    const scriptNonce = /<script nonce="([0-9a-f]+)">/.exec(html)?.[1];
    expect(res.headers.get('content-security-policy')).toMatch(new RegExp(`script-src [^;]*'nonce-${scriptNonce}'`));
    const styleNonces = [...html.matchAll(/<style [^>]*nonce="([^"]+)"/g)].map((match) => match[1]);
    expect(styleNonces.length).toBeGreaterThan(1);
    expect(new Set(styleNonces)).toEqual(new Set([nonce]));
  });

  it.each([...PRERENDERED_PAGES.map((page) => page.path), ...DRAWN_PATHS, ...SHELL_PATHS])(
    'sends %s within the 14.6 kB a new connection carries before its first acknowledgement (ten TCP segments)',
    async (path) => {
      // As sent: fetch would hand back the body decompressed.
      const sent = await new Promise<number>((resolve, reject) => {
        http
          .get(live.server.baseUrl + path, { headers: { 'accept-encoding': 'br' } }, (res) => {
            const { rawHeaders } = res;
            let bytes = 'HTTP/1.1 200 OK\r\n\r\n'.length;
            for (let i = 0; i < rawHeaders.length; i += 2) bytes += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`.length;
            res.on('data', (chunk: Buffer) => (bytes += chunk.length));
            res.on('end', () => resolve(bytes));
          })
          .on('error', reject);
      });
      expect(sent).toBeLessThanOrEqual(10 * 1460);
    },
  );

  it.each([...DRAWN_PATHS, ...SHELL_PATHS])("sends %s, which the app draws, with Chakra's global CSS under the response's style nonce", async (path) => {
    const res = await get(path, 'br');
    const html = await res.text();
    const nonce = /<meta name="csp-nonce" content="([0-9a-f]+)">/.exec(html)?.[1];
    const globals = [...html.matchAll(/<style data-emotion="sm-global [\w ]+" nonce="([^"]+)">([^<]*)<\/style>/g)];
    expect(globals.length).toBeGreaterThan(0);
    expect(new Set(globals.map((match) => match[1]))).toEqual(new Set([nonce]));
    // The tokens of both color modes, as on a prerendered page.
    expect(globals.map((match) => match[2]).join('')).toMatch(/--chakra-colors-bg:[^;]+;[\s\S]*\.dark[^{]*\{[^}]*--chakra-colors-bg:/);
    expect(html).toMatch(/<div id="root"><\/div>/);
  });

  it('paints a page the app draws in the visitor\'s color mode before any script file has run, as a prerendered page does', async () => {
    /** The page's background and its text colour, as painted. */
    const backgrounds: Record<string, string> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await live.browser.newContext({ colorScheme });
      const page = await context.newPage();
      // Only the inline scripts run (the color mode's, the first calls'): none of the app's files.
      await page.route('**/*.js', (route) => route.abort());
      for (const path of ['/dashboard', SHELL_PATHS[0], '/login']) {
        await page.goto(`${live.server.baseUrl}${path}`);
        expect(await page.evaluate(() => document.documentElement.hasAttribute('data-app-ready'))).toBe(false);
        backgrounds[`${colorScheme} ${path}`] = await page.evaluate(() => `${getComputedStyle(document.documentElement).backgroundColor} / ${getComputedStyle(document.body).color}`);
      }
      await context.close();
    }
    for (const path of ['/dashboard', SHELL_PATHS[0]]) {
      expect(backgrounds[`light ${path}`]).toBe(backgrounds['light /login']);
      expect(backgrounds[`dark ${path}`]).toBe(backgrounds['dark /login']);
    }
    // The theme's own background and text (not the browser's canvas), different in each mode.
    expect(backgrounds['light /dashboard']).not.toMatch(/^rgba\(0, 0, 0, 0\)/);
    expect(backgrounds['dark /dashboard']).not.toBe(backgrounds['light /dashboard']);
  });

  it('sends scripts as brotli or gzip copies, cached for a year, and never the HTML templates', async () => {
    const html = await (await get('/login')).text();
    const script = /<script [^>]*data-app="([^" ]+)/.exec(html)?.[1] ?? '';
    expect(script).toMatch(/^\/assets\//);
    for (const [encoding, expected] of [['br', 'br'], ['gzip', 'gzip']] as const) {
      const res = await get(script, encoding);
      expect(res.headers.get('content-encoding')).toBe(expected);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(/javascript/);
    }
    for (const template of ['/index.html', '/shell.html', '/pages/index.html', '/pages/login.html']) expect((await get(template)).status).toBe(404);
  });

  it('hydrates under the configured brand with no mismatch, no CSP violation and no request to another origin', async () => {
    const page = await live.browser.newPage();
    const watch = await watchPage(page);
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    await page.goto(`${live.server.baseUrl}/`, { waitUntil: 'networkidle' });
    await page.getByRole('link', { name: `${BRAND} home` }).waitFor();
    await page.getByRole('link', { name: 'Sign Up' }).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.title()).toContain(BRAND);
    expect([...origins]).toEqual([live.server.baseUrl]);
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });
});

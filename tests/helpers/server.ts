import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  process: ChildProcess;
  /** Output the server wrote, for assertions on logs. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

let loopbacks = 0;

/**
 * A loopback address of its own (127.1.x.y: all of 127/8 reaches this machine) for a test client,
 * so that many accounts made by one test do not share one address's sign-up limit.
 */
export function newLoopbackAddress(): string {
  loopbacks += 1;
  return `127.1.${(loopbacks >> 8) & 255}.${loopbacks & 255}`;
}

/** POSTs JSON from the given local address (fetch cannot choose one); answers the status and body text. */
export function postJsonFrom(url: string, body: unknown, localAddress: string): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** The folder each running server writes its mail to (no SMTP_URL: the outbox), by its address: for `apiClient` to read links. */
export const outboxOf = new Map<string, string>();

export interface ServerOptions {
  /**
   * The host name the browser opens the app by (PUBLIC_URL's), 127.0.0.1 by default. WebAuthn
   * takes no IP address as the relying party: passkey tests open the app as `localhost`.
   */
  hostName?: string;
}

/**
 * The V8 flags `npm start` gives the server (its heap limit, docs/performance.md), read from
 * package.json, so the servers the tests and benches start run as the product does.
 */
const START_FLAGS: string[] = (JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split('&&')
  .at(-1)!
  .trim()
  .split(/\s+/)
  .filter((arg) => arg.startsWith('--max-'));

/** Starts the real server (`server/main.ts`) as its own process on a free port and waits until it is healthy. */
export async function startServer(env: Record<string, string> = {}, { hostName = '127.0.0.1' }: ServerOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-e2e-'));
  const child = spawn(process.execPath, [...START_FLAGS, '--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://${hostName}:${port}`,
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://${hostName}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/api/v1/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not become healthy:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!env.SMTP_URL) outboxOf.set(baseUrl, path.join(dataDir, 'outbox'));
  return {
    baseUrl,
    dataDir,
    process: child,
    output: () => output,
    stop(signal = 'SIGTERM') {
      // Ended already (by itself, or by a signal: then exitCode stays null).
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}

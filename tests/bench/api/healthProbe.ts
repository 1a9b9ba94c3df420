import http from 'node:http';

/**
 * The slow-model bench's health prober (`slowModel.ts`), a process of its own so that what it
 * measures is the app's answer, not the lag of the bench's loop holding thousands of clients:
 * `GET <argv[2]>/api/v1/health` every 100 ms, from loopback address argv[3], until told `stop`;
 * it then sends back the milliseconds each check took, the first one apart, and ends.
 */
const [url, localAddress] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const times: number[] = [];
let stopping = false;

const check = () =>
  new Promise<void>((resolve) => {
    const sent = performance.now();
    const request = http.get(`${url}/api/v1/health`, { agent, localAddress, timeout: 60_000 }, (response) => {
      response.resume();
      response.on('end', () => {
        times.push(performance.now() - sent);
        resolve();
      });
    });
    request.on('error', () => resolve());
    request.on('timeout', () => request.destroy());
  });

async function main(): Promise<void> {
  process.on('message', (message) => {
    if (message === 'stop') stopping = true;
  });
  // One check first, not counted: a process just started under load takes over a second over its
  // first request (loading and compiling its HTTP client), which is the prober's start, not the
  // app's answer. A load balancer's checks come from a running process on a kept-alive connection.
  await check();
  const firstMs = times.pop() ?? null;
  // Bounded: one check at least every 100 ms, until the bench says stop (or leaves).
  while (!stopping && process.connected) {
    await check();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (process.connected) process.send!({ times, firstMs }, () => process.exit(0));
}

void main();

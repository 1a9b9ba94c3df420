import { startFakeOpenAi } from '../../helpers/fakeAi';
import { loopLateness } from './options';

/**
 * The slow-model bench's model (`slowModel.ts`), as a process of its own so it neither shares the
 * app's event loop nor the load generator's: a local OpenAI-compatible endpoint on 127.0.0.1 that
 * takes `argv[2]` milliseconds to answer. It prints its base URL, answers `counts` messages with
 * its request counts and how late its own event loop ran (p99, since a `watch` message: a streamed
 * answer's pieces are written on timers, and a late piece is counted in the gateway's overhead),
 * and ends when its parent does.
 */
async function main(): Promise<void> {
  const delayMs = Number(process.argv[2]);
  if (!Number.isInteger(delayMs) || delayMs < 1) throw new Error(`the model's delay must be a positive whole number of ms, got ${process.argv[2]}`);
  const fake = await startFakeOpenAi({ delayMs, keepRequests: false });
  const lateness = loopLateness();
  process.on('message', (message) => {
    if (message === 'watch') lateness.start();
    if (message === 'counts') process.send!({ counts: fake.counts, loopDelayP99: lateness.stop() });
  });
  process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
  process.send!({ baseUrl: fake.baseUrl });
}

main().catch((error: unknown) => {
  console.error('fake model crashed:', error);
  process.exit(1);
});

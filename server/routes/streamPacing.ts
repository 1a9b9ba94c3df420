import { performance } from 'node:perf_hooks';

/**
 * How often a streamed answer's deltas go out, by how busy the process is.
 *
 * Each delta handed to a client is a socket write of its own (a system call, and on the client's
 * side a read and a parse), whatever its size: a model writing a word at a time costs the gateway
 * far more per answer streamed than per answer sent whole. While few answers stream, or the event
 * loop has time to spare, every delta goes out as it comes. When many stream at once and the loop
 * is busy (its utilization over the last quarter second above `busyAt`), the deltas of one answer
 * that come within a gap go out together, the gap growing with the load up to `maxGapMs`: the
 * answer still arrives whole and on time (its first delta and its end are never held), in fewer,
 * larger pieces, and the loop keeps time for every other request, the health check's included.
 */
export interface StreamPacing {
  /** The gap to keep between two writes of one answer now, in milliseconds (0: none). */
  gapMs(): number;
  /** A streamed answer starts; the returned function says it ended. */
  opened(): () => void;
}

export interface PacingOptions {
  /** Below this many answers streaming at once, no delta waits. */
  minStreams?: number;
  /** The event loop's utilization (0 to 1) from which deltas wait. */
  busyAt?: number;
  /** The gap at full utilization. */
  maxGapMs?: number;
  /** How often the utilization is read, while answers stream. */
  sampleMs?: number;
  /** The utilization since the previous call (tests give their own). */
  utilization?: () => number;
}

function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

export function streamPacing(options: PacingOptions = {}): StreamPacing {
  const { minStreams = 100, busyAt = 0.6, maxGapMs = 400, sampleMs = 250 } = options;
  const utilization = options.utilization ?? loopUtilization();
  let open = 0;
  let gap = 0;
  // Runs only while `minStreams` or more answers stream: below, the gap is 0 and nothing is read.
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    gap = Math.round(Math.min(1, Math.max(0, (utilization() - busyAt) / (1 - busyAt))) * maxGapMs);
  };
  return {
    gapMs: () => gap,
    opened() {
      open += 1;
      if (open >= minStreams && sampler === undefined) {
        // The first reading covers only the time from here.
        utilization();
        sampler = setInterval(sample, sampleMs).unref();
      }
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        open -= 1;
        if (open < minStreams && sampler !== undefined) {
          clearInterval(sampler);
          sampler = undefined;
          gap = 0;
        }
      };
    },
  };
}

/**
 * One answer's deltas, paced: `delta` writes at once when the gap since the last write has passed,
 * else keeps the text for one write when it has; `flush` writes what is kept (before the end).
 */
export function pacedDeltas(pacing: StreamPacing, write: (text: string) => void, now: () => number = Date.now) {
  let kept = '';
  let lastWrite = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (kept === '') return;
    const text = kept;
    kept = '';
    lastWrite = now();
    write(text);
  };
  return {
    delta(text: string) {
      kept += text;
      if (timer !== undefined) return;
      const wait = lastWrite + pacing.gapMs() - now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    flush,
  };
}

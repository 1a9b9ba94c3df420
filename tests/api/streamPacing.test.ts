import { pacedDeltas, streamPacing, type StreamPacing } from '../../server/routes/streamPacing';

/** Issue #34: a streamed answer's deltas go out as they come, unless many stream on a busy loop. */

describe('stream pacing', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A pacing whose loop utilization is whatever `load.value` says, read every 250 ms. */
  const paced = (minStreams = 3) => {
    const load = { value: 0 };
    const pacing = streamPacing({ minStreams, busyAt: 0.6, maxGapMs: 400, sampleMs: 250, utilization: () => load.value });
    return { load, pacing };
  };

  it('keeps no gap while few answers stream, however busy the loop', () => {
    const { load, pacing } = paced();
    load.value = 1;
    const ends = [pacing.opened(), pacing.opened()];
    jest.advanceTimersByTime(1000);
    expect(pacing.gapMs()).toBe(0);
    ends.forEach((end) => end());
  });

  it('grows the gap with the load once many stream, and drops it when they end', () => {
    const { load, pacing } = paced();
    const ends = [pacing.opened(), pacing.opened(), pacing.opened()];
    load.value = 0.5;
    jest.advanceTimersByTime(250);
    expect(pacing.gapMs()).toBe(0);
    load.value = 0.8;
    jest.advanceTimersByTime(250);
    expect(pacing.gapMs()).toBe(200);
    load.value = 1;
    jest.advanceTimersByTime(250);
    expect(pacing.gapMs()).toBe(400);
    // One ends: below the threshold of streams at once, nothing waits.
    ends[0]!();
    ends[0]!();
    expect(pacing.gapMs()).toBe(0);
    ends.slice(1).forEach((end) => end());
    expect(jest.getTimerCount()).toBe(0);
  });

  const fixedGap = (gap: number): StreamPacing => ({ gapMs: () => gap, opened: () => () => undefined });

  it('writes every delta at once without a gap', () => {
    const written: string[] = [];
    const deltas = pacedDeltas(fixedGap(0), (text) => written.push(text));
    ['Use ', 'SUMIF ', 'over ', 'the ', 'region.'].forEach((text) => deltas.delta(text));
    expect(written).toEqual(['Use ', 'SUMIF ', 'over ', 'the ', 'region.']);
  });

  it('with a gap, writes the first delta at once and what comes within the gap together, nothing lost', () => {
    const written: string[] = [];
    const deltas = pacedDeltas(fixedGap(300), (text) => written.push(text), () => Date.now());
    deltas.delta('North ');
    expect(written).toEqual(['North ']);
    jest.advanceTimersByTime(100);
    deltas.delta('sells ');
    jest.advanceTimersByTime(100);
    deltas.delta('3, ');
    expect(written).toEqual(['North ']);
    jest.advanceTimersByTime(100);
    expect(written).toEqual(['North ', 'sells 3, ']);
    // The answer ends within the next gap: what is kept goes out before the end.
    deltas.delta('South ');
    deltas.delta('4.');
    expect(written).toEqual(['North ', 'sells 3, ']);
    deltas.flush();
    expect(written).toEqual(['North ', 'sells 3, ', 'South 4.']);
    expect(jest.getTimerCount()).toBe(0);
    expect(written.join('')).toBe('North sells 3, South 4.');
  });
});

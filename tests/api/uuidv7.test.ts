import { uuidV7 } from '../../server/domain/uuidv7';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const millisecondsOf = (id: string) => parseInt(id.replace('-', '').slice(0, 12), 16);

describe('uuidV7', () => {
  it('starts with the time in milliseconds and sorts in the order the ids were made, within one millisecond too', () => {
    const at = Date.UTC(2026, 10, 23, 12);
    // More ids than the 12-bit counter holds in one millisecond: the time moves on early.
    const ids = Array.from({ length: 10_000 }, () => uuidV7(at));
    for (const id of ids) expect(id).toMatch(V7);
    expect(millisecondsOf(ids[0]!)).toBe(at);
    expect(millisecondsOf(ids.at(-1)!)).toBeGreaterThan(at);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('does not go back with a clock that does', () => {
    const later = uuidV7(Date.UTC(2026, 10, 23, 13));
    const earlier = uuidV7(Date.UTC(2026, 10, 23, 12));
    expect(earlier > later).toBe(true);
    expect(uuidV7(Date.UTC(2026, 10, 23, 14)) > earlier).toBe(true);
  });
});

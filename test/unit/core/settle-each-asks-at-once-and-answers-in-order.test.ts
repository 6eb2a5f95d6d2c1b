/**
 * settleEach is how doctor asks every provider and every recorded workspace's provider at once: the answers come
 * back in the items' order whichever came first, a failure stays in its place, and no more than the limit are
 * ever in flight.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { settleEach } from '../../../src/core/settle-each.js';

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('settleEach', () => {
  it('answers in the order of the items, a failure in its own place', async () => {
    const settled = await settleEach([30, 0, 10], 3, async (ms) => {
      await later(ms);
      if (ms === 0) throw new Error('no answer');
      return ms;
    });
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([30, 'no answer', 10]);
  });

  it('asks them at once: each question is asked before any is answered', async () => {
    let asked = 0;
    let open = (): void => undefined;
    // No answer comes until all three are asked (or 2 s pass): asked in turn, the first would wait out the 2 s alone.
    const gate = new Promise<void>((r) => {
      open = r;
      setTimeout(r, 2_000);
    });
    const askedBeforeAnswers = await settleEach([1, 2, 3], 3, async () => {
      if (++asked === 3) open();
      await gate;
      return asked;
    });
    expect(askedBeforeAnswers.map((s) => s.status === 'fulfilled' && s.value)).toEqual([3, 3, 3]);
  });

  it('never has more than the limit in flight, and asks every item once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }), fc.integer({ min: 1, max: 5 }), async (delays, limit) => {
        let inFlight = 0;
        let most = 0;
        const asked: number[] = [];
        const settled = await settleEach(
          delays.map((ms, i) => ({ ms, i })),
          limit,
          async ({ ms, i }) => {
            inFlight++;
            most = Math.max(most, inFlight);
            asked.push(i);
            await later(ms);
            inFlight--;
            return i;
          },
        );
        expect(most).toBeLessThanOrEqual(limit);
        expect(asked.sort((a, b) => a - b)).toEqual(delays.map((_, i) => i));
        expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : -1))).toEqual(delays.map((_, i) => i));
      }),
      { seed: 17, numRuns: 40 },
    );
  });

  it('asks every item, one at a time, when the limit is 0 or not a number', async () => {
    for (const limit of [0, Number.NaN, -3]) {
      const settled = await settleEach([1, 2], limit, async (n) => n * 10);
      expect(settled.map((s) => s.status === 'fulfilled' && s.value)).toEqual([10, 20]);
    }
  });

  it('answers nothing for no items', async () => {
    expect(await settleEach([], 4, async () => 1)).toEqual([]);
  });
});

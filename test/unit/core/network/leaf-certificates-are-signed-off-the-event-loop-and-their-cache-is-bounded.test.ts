/**
 * #18 follow-up: a job with a wildcard allow-list can ask its proxy for any
 * number of host names, and each new one cost ~25 ms of RSA signing on the
 * event loop (stalling every tunnel, and a detached job's shared
 * supervisor), kept forever in an unbounded cache. Leaves are now signed by
 * a worker thread and kept in an LRU of bounded size: a burst of names is
 * signed with the event loop free to run, every leaf verifies for its own
 * name, the least recently used goes first past the cap, and close ends
 * the worker.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LruCache, ensureWorkspaceCa, loadWorkspaceCa } from '../../../../src/core/network/egress-ca.js';

const home = mkdtempSync(join(tmpdir(), 'hs-leaf-'));
ensureWorkspaceCa(home, 'ws');
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('leaf certificates', () => {
  it('are signed by a worker while the event loop keeps running, each for its own name', async () => {
    const ca = loadWorkspaceCa(home, 'ws');
    try {
      const hosts = Array.from({ length: 8 }, (_, i) => `h${i}.wild.test`);
      let ticks = 0;
      let stop = false;
      // Counts turns of the event loop while the burst is signed: on the main thread, signing would leave none between leaves.
      const spin = () => {
        if (stop) return;
        ticks += 1;
        setImmediate(spin);
      };
      setImmediate(spin);
      const leaves = await Promise.all(hosts.map((h) => ca.leafFor(h)));
      stop = true;
      expect(ticks).toBeGreaterThan(hosts.length);
      const issuer = new X509Certificate(ca.certPem).publicKey;
      leaves.forEach((leaf, i) => {
        const cert = new X509Certificate(leaf.cert);
        expect(cert.verify(issuer)).toBe(true);
        expect(cert.checkHost(hosts[i]!)).toBe(hosts[i]);
      });
      expect(new Set(leaves.map((l) => new X509Certificate(l.cert).serialNumber)).size).toBe(hosts.length);
    } finally {
      await ca.close();
    }
  });

  it('keep at most the cap, the least recently used going first, and end with close', async () => {
    const ca = loadWorkspaceCa(home, 'ws', { cacheMax: 2 });
    try {
      const a = ca.leafFor('a.test');
      const b = ca.leafFor('b.test');
      expect(ca.leafFor('a.test')).toBe(a); // a is now the most recent
      await Promise.all([a, b, ca.leafFor('c.test')]); // c pushes out b, the least recent
      expect(ca.leafFor('a.test')).toBe(a);
      const again = ca.leafFor('b.test'); // signed anew
      expect(again).not.toBe(b);
      expect(new X509Certificate((await again).cert).serialNumber).not.toBe(new X509Certificate((await b).cert).serialNumber);
    } finally {
      await ca.close();
    }
    await expect(ca.leafFor('after-close.test')).rejects.toMatchObject({ name: 'SignerStopped' });
  });

  it('LRU: never holds more than its cap and always holds the last key set (seeded)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 20 })), { maxLength: 200 }), (max, ops) => {
        const lru = new LruCache<number, number>(max);
        const order: number[] = [];
        for (const [isSet, key] of ops) {
          if (isSet) {
            lru.set(key, key);
            order.splice(order.indexOf(key) >>> 0, order.includes(key) ? 1 : 0);
            order.push(key);
            if (order.length > max) order.shift();
          } else if (lru.get(key) !== undefined) {
            order.splice(order.indexOf(key), 1);
            order.push(key);
          }
          expect(lru.size).toBeLessThanOrEqual(max);
        }
        for (const key of order) expect(lru.get(key)).toBe(key);
      }),
      { seed: 25, numRuns: 200 },
    );
  });
});

/**
 * Secrets at egress (#18 item 3): the proxy scans what a job sends in chunks
 * as they arrive, so a placeholder split across any chunk boundaries, or
 * trickled byte by byte, must still be found; bytes without one never are.
 * Seeded and bounded property test over random texts and random splits.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { PlaceholderScanner, planSecrets } from '../../../../src/core/network/egress-secrets.js';

const secrets = planSecrets(
  [
    { name: 'API_TOKEN', value: 'v1', host: 'api.test' },
    { name: 'OTHER', value: 'v2', host: 'api.test' },
  ],
  { network: 'allowlist', networkAllow: ['api.test'] },
  {},
);

const scan = (text: string, cuts: number[]) => {
  const scanner = new PlaceholderScanner(secrets);
  const bytes = Buffer.from(text, 'latin1');
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const found = new Set<string>();
  let from = 0;
  for (const p of [...points, bytes.length]) {
    for (const s of scanner.push(bytes.subarray(from, p))) found.add(s.name);
    from = p;
  }
  return found;
};

it('finds a placeholder however the bytes around it are cut into chunks', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 200 }),
      fc.string({ maxLength: 200 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      fc.boolean(),
      (before, after, cuts, which) => {
        const secret = secrets[which ? 0 : 1]!;
        expect(scan(`${before}${secret.placeholder}${after}`, cuts).has(secret.name)).toBe(true);
      },
    ),
    { seed: 18, numRuns: 300 },
  );
});

it('finds one trickled a byte at a time, and none in text without one', () => {
  const text = `Authorization: Bearer ${secrets[0]!.placeholder}\r\n`;
  expect([
    ...scan(
      text,
      Array.from({ length: text.length }, (_, i) => i),
    ),
  ]).toEqual(['API_TOKEN']);
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 20 }), (text, cuts) => {
      expect(scan(`hs-secret-API_TOKEN-${text}`, cuts).size).toBe(0);
    }),
    { seed: 18, numRuns: 200 },
  );
});

/**
 * Output is hostile: whatever the text, parseFindings returns (never throws)
 * and its time grows with the input's size, not faster. Random text and
 * fixture text mutated at random never throw; long adversarial lines (the
 * shapes that make backtracking regexes quadratic) and a 64 MiB log finish
 * within a few seconds. Seeded, so a failure is reproducible, and bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findingLines, parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

const FIXTURES = [
  readFixture('pytest', 'default'),
  readFixture('unittest', 'default'),
  readFixture('node-test', 'tap'),
  readFixture('node-test', 'spec'),
  readFixture('vitest', 'default'),
  readFixture('jest', 'handwritten'),
  readFixture('go-test', 'json'),
  readFixture('cargo-test', 'default'),
  readFixture('tsc', 'pretty'),
  readFixture('gcc', 'small'),
  readFixture('rustc', 'warncrate'),
  readFixture('eslint', 'stylish'),
  readFixture('python', 'chained'),
  readFixture('python', 'syntax'),
];

/** A fixture's lines, some dropped, duplicated, cut or overwritten with random text. */
const mutatedFixture = fc
  .tuple(fc.constantFrom(...FIXTURES), fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.string({ unit: 'binary', maxLength: 80 })), { maxLength: 30 }))
  .map(([text, edits]) => {
    const lines = text.split('\n');
    for (const [at, op, noise] of edits) {
      const i = at % Math.max(1, lines.length);
      const line = lines[i] ?? '';
      if (op === 0) lines.splice(i, 1);
      else if (op === 1) lines.splice(i, 0, line);
      else if (op === 2) lines[i] = line.slice(0, noise.length % (line.length + 1));
      else if (op === 3) lines[i] = noise;
      else lines[i] = line + noise;
    }
    return lines.join('\n');
  });

function timed(text: string): number {
  const start = performance.now();
  findingLines(parseFindings(text, { maxItems: 20 }));
  return performance.now() - start;
}

describe('finding parsers on hostile input', () => {
  it('never throw on random text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: -2, max: 50 }), (text, maxItems) => {
        expect(Array.isArray(findingLines(parseFindings(text, { maxItems })))).toBe(true);
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  it('never throw on mutated tool output', () => {
    fc.assert(
      fc.property(mutatedFixture, fc.integer({ min: 0, max: 20 }), (text, maxItems) => {
        const findings = parseFindings(text, { maxItems });
        for (const finding of findings) {
          if (finding.kind === 'test-summary') expect(finding.failures.length).toBeLessThanOrEqual(Math.max(1, maxItems));
          if (finding.kind === 'diagnostics') expect(finding.items.length).toBeLessThanOrEqual(Math.max(1, maxItems));
        }
        findingLines(findings);
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  it('stay fast on long lines shaped to make regexes backtrack', () => {
    const shapes = [
      '_ '.repeat(50_000),
      `${'='.repeat(40_000)} x`,
      `a:${'1:'.repeat(40_000)}`,
      `x.py:${'9'.repeat(60_000)}`,
      `  1:2  error  ${'  '.repeat(40_000)}x`,
      `a.c:1:1: warning: x${' '.repeat(60_000)}[`,
      `src/a.ts(${'1,'.repeat(40_000)}`,
      `  File "${'"'.repeat(60_000)}`,
      ` FAIL  ${' > '.repeat(30_000)}`,
      `test ${'x ... '.repeat(20_000)}`,
      `thread '${"'".repeat(60_000)}`,
      `      Tests  ${'1 failed | '.repeat(10_000)}`,
    ];
    // Each shape as one huge line and as 2,000 lines of 4 KiB: both must stay linear.
    for (const shape of shapes) {
      const many = Array.from({ length: 2000 }, () => shape.slice(0, 4096)).join('\n');
      expect(timed(shape) + timed(many), shape.slice(0, 30)).toBeLessThan(3000);
    }
  });

  // A complexity guard, not a speed claim (about 1.7 s on a quiet machine; a quadratic parser takes minutes): long variant only.
  it.runIf(process.env.HEADSPACE_LONG_TESTS === '1')(
    'reads a 64 MiB log within seconds',
    () => {
      const storm = readFixture('gcc', 'storm');
      const text = storm.repeat(Math.ceil((64 * 1024 * 1024) / storm.length));
      const elapsed = timed(text);
      expect(elapsed).toBeLessThan(20_000);
      const [finding] = parseFindings(storm.repeat(3), { maxItems: 3 });
      expect(finding).toMatchObject({ errors: 200, more: 197 });
    },
    60_000,
  );
});

/**
 * Checks are numbered in a documented stable order — as judged: output
 * patterns, files, then commands — and each is also named by its place among
 * the checks of its own kind, which is the order the caller gave them
 * ("verify 2 of 2" is the second --verify whatever came between). The faces
 * take the three kinds as separate lists, so no order across kinds exists to
 * keep; where several kinds are present the verdict line naming a check
 * says how checks are numbered (with one kind, the numbering is the order
 * given and the label stays as it was).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_ORDER, verificationFinding } from '../../../../src/core/verification/verification-view.js';
import { planChecks, type CheckKind, type CheckResult } from '../../../../src/core/verification/verification.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('a check', () => {
  it("is named by its kind's place as given in a run's verdict, with the order note", async () => {
    t = makeTestEngine();
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['write', 'x.txt', 'hi'], verify: [['true'], ['false']], expectFiles: [{ path: 'x.txt' }] });
    expect(pkg.status).toBe('failure');
    expect(pkg.outcome_summary).toContain('check 3 of 3 (verify 2 of 2: false) failed');
    expect(pkg.key_findings[0]).toContain(CHECK_ORDER);
    expect(pkg.evidence[0]!.label).toContain('verify 2 of 2');
  });

  it('names the deciding check by its place among its kind as given, whatever the mix (seeded)', () => {
    const lists = fc.record({
      verify: fc.integer({ min: 0, max: 4 }),
      files: fc.integer({ min: 0, max: 4 }),
      outputs: fc.integer({ min: 0, max: 4 }),
    });
    fc.assert(
      fc.property(
        lists.filter((l) => l.verify + l.files + l.outputs > 0),
        fc.nat(),
        (l, pick) => {
          const given = {
            verify: Array.from({ length: l.verify }, (_, i) => ['check', `v${i}`]),
            expectFiles: Array.from({ length: l.files }, (_, i) => ({ path: `f${i}.txt` })),
            expectOutput: Array.from({ length: l.outputs }, (_, i) => `o${i}`),
          };
          const planned = planChecks(given);
          const failing = pick % planned.length;
          const checks: CheckResult[] = planned.map((p, i) => ({
            kind: p.kind,
            check: p.kind === 'verify' ? p.argv.join(' ') : p.kind === 'expect-file' ? p.path : p.pattern,
            outcome: i === failing ? 'failed' : 'passed',
            detail: 'x',
            evidence_sha256: null,
          }));
          const kind: CheckKind = checks[failing]!.kind;
          const ofKind = checks.filter((c) => c.kind === kind);
          // Its place among its kind is its place in the list the caller gave for that kind.
          const givenIndex = ofKind.findIndex((c) => c === checks[failing]);
          const asGiven = kind === 'verify' ? `check v${givenIndex}` : kind === 'expect-file' ? `f${givenIndex}.txt` : `o${givenIndex}`;
          const line = verificationFinding({ outcome: 'failed', checks })!;
          const mixed = new Set(checks.map((c) => c.kind)).size > 1;
          // With one kind the numbering is the order given, and the label stays short.
          expect(line).toContain(
            mixed
              ? `check ${failing + 1} of ${checks.length} (${kind} ${givenIndex + 1} of ${ofKind.length}: ${asGiven})`
              : `check ${givenIndex + 1} of ${checks.length} (${kind} ${asGiven})`,
          );
          expect(line.includes(CHECK_ORDER)).toBe(mixed);
        },
      ),
      { seed: 16, numRuns: 200 },
    );
  });
});

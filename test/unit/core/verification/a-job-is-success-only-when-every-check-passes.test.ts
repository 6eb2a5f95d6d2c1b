/**
 * Exit 0 is not task success (#16): a run with checks is success only when
 * the job exited 0 AND every check passed. A check that ran and said no
 * makes the job failure (exit 6) with that check's evidence first and the
 * summary naming it; a job that did not succeed keeps its own status and
 * its checks are recorded as skipped. Every check is in
 * provenance.verification with its outcome and evidence digest.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, categoryOfStatus } from '../../../../src/core/status.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function workspace(): Promise<string> {
  t = makeTestEngine();
  return (await t.engine.create({})).provenance.workspace_id!;
}

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('a run with a verification contract', () => {
  it('is success when the job exits 0 and every check passes, each check listed with its evidence digest', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({
      workspaceId: ws,
      argv: ['write', 'out.txt', 'hello', '&&', 'echo', 'answer=42'],
      verify: [['cat', 'out.txt']],
      expectFiles: [{ path: 'out.txt', sha256: sha('hello') }],
      expectOutput: ['^answer=\\d+$'],
    });
    expect(pkg.status).toBe('success');
    const v = pkg.provenance.verification!;
    expect(v.outcome).toBe('passed');
    expect(v.checks.map((c) => [c.kind, c.outcome])).toEqual([
      ['expect-output', 'passed'],
      ['expect-file', 'passed'],
      ['verify', 'passed'],
    ]);
    expect(v.checks[1]!.evidence_sha256).toBe(sha('hello'));
    expect(v.checks[2]!.evidence_sha256).toBe(sha('hello'));
    expect(pkg.key_findings[0]).toBe('verification passed: 3 of 3 checks passed');
  });

  it('is failure (exit 6) when the job exits 0 but a check command fails, with that check first in the evidence', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['echo', 'done'], verify: [['true'], ['cat', 'report.txt']] });
    expect(pkg.status).toBe('failure');
    expect(EXIT_CODES[categoryOfStatus(pkg.status)]).toBe(6);
    expect(pkg.provenance.exit_code).toBe(0);
    expect(pkg.outcome_summary).toContain('exited 0, but check 2 of 2 (verify cat report.txt) failed: exited 1');
    expect(pkg.evidence[0]!.label).toContain('check 2 of 2');
    expect(pkg.evidence[0]!.excerpt).toContain('report.txt: No such file');
    expect(pkg.provenance.verification!.checks.map((c) => c.outcome)).toEqual(['passed', 'failed']);
  });

  it('is failure when an expected file is missing or has another digest', async () => {
    const ws = await workspace();
    const missing = await t.engine.run({ workspaceId: ws, argv: ['true'], expectFiles: [{ path: 'out/result.json' }] });
    expect(missing.status).toBe('failure');
    expect(missing.provenance.verification!.checks[0]!.detail).toBe('out/result.json does not exist');
    const wrong = await t.engine.run({ workspaceId: ws, argv: ['write', 'a.txt', 'x'], expectFiles: [{ path: 'a.txt', sha256: sha('y') }] });
    expect(wrong.status).toBe('failure');
    expect(wrong.provenance.verification!.checks[0]!.detail).toContain(`not the expected ${sha('y')}`);
    expect(wrong.provenance.verification!.checks[0]!.evidence_sha256).toBe(sha('x'));
  });

  it('is failure when an expected pattern is found nowhere in the whole kept output', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['echo', 'answer=forty-two'], expectOutput: ['answer=\\d+'] });
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.verification!.checks[0]!.evidence_sha256).toBe(sha('answer=forty-two\n'));
  });

  it('keeps the status of a job that did not succeed and records its checks as skipped', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['fail', '3'], verify: [['true']] });
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.exit_code).toBe(3);
    expect(pkg.provenance.verification).toEqual({
      outcome: 'skipped',
      checks: [{ kind: 'verify', check: 'true', outcome: 'skipped', detail: 'not run: the job itself ended failure', evidence_sha256: null }],
    });
  });

  it('refuses a bad pattern, digest or path before anything runs', async () => {
    const ws = await workspace();
    await expect(t.engine.run({ workspaceId: ws, argv: ['true'], expectOutput: ['(a'] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(t.engine.run({ workspaceId: ws, argv: ['true'], expectOutput: ['(\\w)\\1'] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(t.engine.run({ workspaceId: ws, argv: ['true'], expectFiles: [{ path: 'a', sha256: 'abc' }] })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
    });
    await expect(t.engine.run({ workspaceId: ws, argv: ['true'], expectFiles: [{ path: '../etc/passwd' }] })).rejects.toMatchObject({ code: 'BAD_PATH' });
    await expect(t.engine.run({ workspaceId: ws, argv: ['true'], verify: [[]] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    const inspected = await t.engine.inspect({ handle: ws });
    expect(inspected.key_findings.join('\n')).not.toMatch(/job-0/);
  });
});

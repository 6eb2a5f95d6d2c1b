/**
 * A deny-command rule (#16) refuses a matching job with POLICY_DENIED
 * (exit 3), naming the rule, before anything is recorded or started: no
 * job row, no log, no provider call. It matches the parsed argv — the
 * program by argv[0] and by its base name, each further word among the
 * arguments in any position — never substrings of a joined line, and it
 * does not pretend to read a shell's script: such a job runs with a
 * warning. Every refusal is journalled as a rule decision.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function guarded(rules: string[]): Promise<string> {
  t = makeTestEngine();
  return (await t.engine.create({ rules })).provenance.workspace_id!;
}

describe('deny-command rules', () => {
  it('refuse a matching job with policy_denied naming the rule, recording no job and writing no log', async () => {
    const ws = await guarded(['deny-command:rm -rf']);
    await expect(t.engine.run({ workspaceId: ws, argv: ['/usr/bin/rm', 'build', '-rf'] })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('rule deny-command:rm -rf') as unknown,
    });
    const inspected = await t.engine.inspect({ handle: ws });
    expect(inspected.key_findings.join('\n')).not.toMatch(/job-/);
    expect(existsSync(join(t.home, 'jobs')) ? readdirSync(join(t.home, 'jobs')) : []).toEqual([]);
    const rules = await t.engine.rules({ workspaceId: ws });
    expect(rules.evidence[0]!.excerpt).toMatch(/denied deny-command:rm -rf: the command matches rule deny-command:rm -rf/);
  });

  it('match words, not substrings, and only the spelling they name', async () => {
    const ws = await guarded(['deny-command:rm -rf']);
    for (const argv of [
      ['echo', 'rm -rf /'],
      ['rm', '-r', '-f', 'x'],
      ['farm', '-rf'],
      ['rm', 'x'],
    ]) {
      const run = await t.engine.run({ workspaceId: ws, argv });
      expect(run.status === 'success' || run.status === 'failure', argv.join(' ')).toBe(true);
    }
  });

  it('take globs on the program and the arguments', async () => {
    const ws = await guarded(['deny-command:python* *.evil']);
    await expect(t.engine.run({ workspaceId: ws, argv: ['python3.12', 'x.evil'] })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    expect((await t.engine.run({ workspaceId: ws, argv: ['python3.12', 'x.good'] })).status).toBe('failure');
  });

  it('do not read a shell script, and the result says so', async () => {
    const ws = await guarded(['deny-command:rm']);
    const run = await t.engine.run({ workspaceId: ws, argv: ['sh', '-c', 'rm -rf x'] });
    expect(run.warnings.join('\n')).toContain('the script itself was not inspected');
  });

  it('are refused at create when malformed, and nothing is created', async () => {
    t = makeTestEngine();
    await expect(t.engine.create({ workspaceId: 'w', rules: ['deny-command:a && b'] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(t.engine.create({ workspaceId: 'w', rules: ['stuck:1'] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(t.engine.create({ workspaceId: 'w', rules: ['error-rate:5/3'] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(t.engine.create({ workspaceId: 'w', rules: ['sudo'] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    expect((await t.engine.ls({})).key_findings.join('\n')).not.toContain('w ');
  });
});

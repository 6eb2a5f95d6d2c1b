/**
 * Recovery from a crash inside checkpoint, restore, fork and settle (#14
 * item 6): after a SIGKILL at a named point (HEADSPACE_TEST_CRASH_AT), the
 * store never shows a half-made checkpoint as valid, never invents a
 * workspace, never applies an output twice; doctor --repair --apply cleans
 * up, and the verbs work again afterwards.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/core/engine.js';
import { createFakeProvider } from '../../src/providers/fake/fake-provider.js';
import { cli, makeHome } from '../helpers/cli.js';
import { idAfter } from '../helpers/snapshots.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const ok = (args: string[]) => {
  const out = cli(home, args);
  expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
  return out.stdout;
};
const crash = (point: string, args: string[]) => {
  const out = cli(home, args, { HEADSPACE_TEST_CRASH_AT: point });
  expect(out.code, `${point} did not crash: ${out.stdout}${out.stderr}`).toBe(-1);
};
const json = (args: string[]) => JSON.parse(ok([...args, '--json'])) as { key_findings: unknown[]; outcome_summary: string };
const finding = (findings: unknown[], prefix: 'checkpoint: ' | 'output: ') => idAfter(findings, prefix === 'checkpoint: ' ? 'checkpoint' : 'output');
const files = (ws: string) => (JSON.parse(ok(['run', '--json', ws, 'ls'])) as { evidence: Array<{ excerpt: string }> }).evidence[0]!.excerpt;
/**
 * doctor --repair --apply through an engine that knows the fake provider only
 * (as the CLI's fake sees the same home): the CLI's doctor would also sweep
 * the machine's native leftovers, which belong to no test.
 */
const repair = async (): Promise<string> => {
  const engine = createEngine({
    home,
    version: '0.0.0-test',
    defaultProvider: 'fake',
    providers: { fake: () => createFakeProvider({ persistPath: join(home, 'fake', 'state.json') }) },
  });
  try {
    const report = await engine.doctor({ provider: 'fake', repair: true, apply: true });
    expect(report.status, JSON.stringify(report.key_findings)).toBe('success');
    return report.key_findings.map(String).join('\n');
  } finally {
    engine.close();
  }
};

describe('a crash inside a snapshot verb', () => {
  it('leaves a half-made checkpoint incomplete, never valid, and repair removes it', async () => {
    ok(['create', '--workspace-id', 'cpw']);
    ok(['run', 'cpw', 'write', 'a.txt', 'one']);
    for (const point of ['checkpoint:after-intent', 'checkpoint:after-provider-call']) {
      crash(point, ['checkpoint', 'cpw', '--label', 'doomed']);
      const seen = ok(['inspect', 'cpw']);
      expect(seen).toMatch(/checkpoint cp-\S+ \(doomed\): incomplete \(interrupted: never restored\)/);
      expect(seen).not.toMatch(/\(doomed\): valid/);
      await repair();
      expect(ok(['inspect', 'cpw'])).not.toContain('doomed');
    }
    expect(json(['checkpoint', 'cpw']).outcome_summary).toContain('1 file(s)');
  });

  it('a restore cut short is settled by repair and the checkpoint, even a consuming one, restores again', async () => {
    ok(['create', '--workspace-id', 'rw']);
    ok(['run', 'rw', 'write', 'a.txt', 'one']);
    const cp = finding(json(['checkpoint', 'rw']).key_findings, 'checkpoint: ')!;
    ok(['run', 'rw', 'write', 'a.txt', 'two']);
    crash('restore:after-intent', ['restore', 'rw', cp, '--consume']);
    expect(await repair()).toMatch(/restore/);
    ok(['restore', 'rw', cp, '--consume']);
    expect(ok(['run', 'rw', 'cat', 'a.txt'])).toContain('one');
    expect(cli(home, ['restore', 'rw', cp]).code).toBe(2);
  });

  it('a fork cut short before the provider made the child never shows it ready', async () => {
    ok(['create', '--workspace-id', 'fp']);
    crash('fork:after-intent', ['fork', 'fp', '--workspace-id', 'fc-before']);
    await repair();
    const child = cli(home, ['inspect', 'fc-before']);
    expect(child.stdout).toContain('lifecycle state: failed');
    expect(cli(home, ['seal', 'fc-before']).code).not.toBe(0);
  });

  it('a fork cut short after the provider made the child is repaired to a ready fork that seals', async () => {
    ok(['create', '--workspace-id', 'fp2']);
    ok(['run', 'fp2', 'write', 'base.txt', 'base']);
    crash('fork:after-provider-call', ['fork', 'fp2', '--workspace-id', 'fc-after']);
    await repair();
    expect(ok(['inspect', 'fc-after'])).toContain('lifecycle state: ready');
    ok(['run', 'fc-after', 'write', 'x.txt', 'x']);
    expect(json(['seal', 'fc-after']).key_findings).toContain('1 change(s)');
  });

  it('a select cut short mid-apply is rolled back by repair, unconsumed, and then settles exactly once', async () => {
    ok(['create', '--workspace-id', 'sp']);
    ok(['run', 'sp', 'write', 'keep.txt', 'parent']);
    ok(['fork', 'sp', '--workspace-id', 'sc']);
    ok(['run', 'sc', 'rm', 'keep.txt']);
    ok(['run', 'sc', 'write', 'new.txt', 'child']);
    const out = finding(json(['seal', 'sc']).key_findings, 'output: ')!;
    const before = files('sp');
    crash('settle:mid-apply', ['settle', out, 'select']);
    const again = cli(home, ['settle', out, 'select']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('interrupted');
    expect(await repair()).toContain(`output ${out} is unconsumed`);
    expect(files('sp')).toBe(before);
    ok(['settle', out, 'select']);
    expect(ok(['run', 'sp', 'ls'])).toContain('new.txt');
    expect(ok(['run', 'sp', 'ls'])).not.toContain('keep.txt');
    expect(cli(home, ['settle', out, 'select']).code).toBe(2);
  });

  it('a discard cut short is finished by repair: the child destroyed, the output settled', async () => {
    ok(['create', '--workspace-id', 'dp']);
    ok(['fork', 'dp', '--workspace-id', 'dc']);
    ok(['run', 'dc', 'write', 'x.txt', 'x']);
    const out = finding(json(['seal', 'dc']).key_findings, 'output: ')!;
    crash('settle:after-intent', ['settle', out, 'discard']);
    await repair();
    expect(cli(home, ['inspect', 'dc']).stderr).toContain('destroyed workspace');
    const second = cli(home, ['settle', out, 'release']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('discard');
  });
});

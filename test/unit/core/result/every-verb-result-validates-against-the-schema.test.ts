/**
 * What every verb returns fits the one result schema (core/result/result-schema.ts)
 * in both its forms: the in-memory package (nulls for unknowns) against the
 * schema itself, and renderJson's output (nulls left out) against the JSON
 * form derived from it, which is what MCP serves and clients validate. The
 * packages come from the real engine on the fake provider, one or more per
 * verb, so a verb that drifts from the schema fails here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/core/result/render-json.js';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { ResultPackageJsonSchema, ResultPackageSchema } from '../../../../src/core/result/result-schema.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
let host: string;
const results: Array<[string, ResultPackage]> = [];

beforeAll(async () => {
  t = makeTestEngine();
  host = mkdtempSync(join(tmpdir(), 'hs-schema-'));
  writeFileSync(join(host, 'data.txt'), 'some input\n');
  const e = t.engine;
  const keep = async (name: string, pkg: Promise<ResultPackage>) => results.push([name, await pkg]);
  await keep('create', e.create({ workspaceId: 'every', purpose: 'schema check' }));
  await keep('put', e.put({ workspaceId: 'every', hostPath: join(host, 'data.txt'), destination: 'in/data.txt' }));
  await keep(
    'run (test summary)',
    e.run({ workspaceId: 'every', argv: ['echo', 'FAILED test_pi.py::test_digits - assert 3 == 4\n==== 1 failed, 2 passed in 0.10s ===='], cwd: 'in' }),
  );
  await keep(
    'run (declares)',
    e.run({ workspaceId: 'every', argv: ['write', 'report.json', '{"pi":3.14}'], declares: [{ name: 'report.json', purpose: 'the report' }] }),
  );
  await keep('run (failure)', e.run({ workspaceId: 'every', argv: ['fail', '3'] }));
  await keep('declare', e.declare({ workspaceId: 'every', name: 'in/data.txt', purpose: 'the input, kept' }));
  await keep('export', e.export({ workspaceId: 'every', name: 'report.json', to: join(host, 'report.json') }));
  await keep('run (verified)', e.run({ workspaceId: 'every', argv: ['echo', 'ok'], verify: [['true'], ['no-such-checker']], expectOutput: ['ok'] }));
  await keep('receipt', e.receipt({ jobId: 'job-000002', out: join(host, 'receipt.json') }));
  await keep('receipt (verify)', e.receipt({ verifyFile: join(host, 'receipt.json'), artifactsDir: host }));
  await keep('rules (add)', e.rules({ workspaceId: 'every', action: 'add', rule: 'stuck:2:block' }));
  await keep('rules (list)', e.rules({ workspaceId: 'every' }));
  await keep('inspect (job)', e.inspect({ handle: 'job-000001' }));
  await keep('inspect (workspace)', e.inspect({ handle: 'every' }));
  await keep('logs', e.logs({ jobId: 'job-000001' }));
  await keep('logs (grep)', e.logs({ jobId: 'job-000001', grep: 'FAILED' }));
  await keep('ls', e.ls());
  await keep('ls-files', e.listFiles({ workspaceId: 'every' }));
  await keep('stop (nothing running)', e.stop({ workspaceId: 'every' }));
  await keep('probe (list)', e.probe({ list: true }));
  await keep('doctor', e.doctor());
  await keep('destroy', e.destroy({ workspaceId: 'every', force: true }));
  await keep('gc', e.gc());
});

afterAll(() => {
  t?.cleanup();
  rmSync(host, { recursive: true, force: true });
});

describe('every verb’s result', () => {
  it('fits the schema in memory, nulls and all', () => {
    for (const [name, pkg] of results) {
      const parsed = ResultPackageSchema.safeParse(pkg);
      expect(parsed.error?.issues ?? [], name).toEqual([]);
    }
  });

  it('fits the JSON form of the schema once rendered, nulls left out', () => {
    for (const [name, pkg] of results) {
      const parsed = ResultPackageJsonSchema.safeParse(JSON.parse(renderJson(pkg)));
      expect(parsed.error?.issues ?? [], name).toEqual([]);
    }
  });

  it('covers structured findings, unknown figures and unexported artifacts, so the forms are really exercised', () => {
    const all = results.map(([, pkg]) => pkg);
    expect(all.some((pkg) => pkg.key_findings.some((f) => typeof f !== 'string' && f.kind === 'test-summary'))).toBe(true);
    expect(all.some((pkg) => pkg.artifacts.some((a) => a.reference === null))).toBe(true);
    expect(all.some((pkg) => pkg.resource_usage.cpu_seconds === null && pkg.provenance.job_id === null)).toBe(true);
    expect(all.some((pkg) => pkg.provenance.cwd === '/workspace/in')).toBe(true);
    expect(all.some((pkg) => pkg.attention.length > 0)).toBe(true);
  });
});

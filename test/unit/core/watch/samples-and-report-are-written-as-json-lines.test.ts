/**
 * A watch with no violation runs to its deadline (success) and leaves every
 * sample and the report, one JSON line each, in the file the result names,
 * under the home's watch/ folder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('the watch record', () => {
  it('holds each sample and then the report, one JSON line each', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const seen: unknown[] = [];
    const pkg = await t.engine.watch({ handle: 'w', forSeconds: 4, everySeconds: 1, onSample: (s) => seen.push(s) });
    expect(pkg.status).toBe('success');
    const record = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'watch-record') as { record_path: string };
    expect(record.record_path.startsWith(join(t.home, 'watch'))).toBe(true);
    const lines = readFileSync(record.record_path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(['sample', 'sample', 'sample', 'sample', 'sample', 'report']);
    expect(lines.slice(0, -1).map((l) => l.elapsed_seconds)).toEqual([0, 1, 2, 3, 4]);
    expect(lines.slice(0, -1)).toEqual(seen);
    expect(lines.at(-1)).toMatchObject({ type: 'report', status: 'success', violations: [], samples: 5, handle: 'w' });
    expect(lines[0]).toMatchObject({ workspace_id: 'w', job_id: null, state: 'ready', provider_state: 'ready', memory_bytes: 0, pids: 0, storage_bytes: 0 });
  });
});

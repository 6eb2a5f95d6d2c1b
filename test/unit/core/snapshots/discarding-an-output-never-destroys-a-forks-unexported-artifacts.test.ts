/**
 * settle … discard destroys the fork. A fork holding a declared artifact
 * never exported lost it silently, its result naming none (a new user,
 * session 12), while destroy refuses the same loss. Now the discard is
 * refused alike (exit 1, WOULD_DISCARD) naming the artifact, and nothing is
 * settled: the output stays sealed, the fork and its file stay. Exported, or
 * let go with release, nothing is lost; destroy --force stays the
 * deliberate way, naming what it discards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine | undefined;
const dirs: string[] = [];
afterEach(() => {
  t?.cleanup();
  t = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function forkWithArtifact() {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
  await write(engine, 'c', 'important.txt', 'only copy');
  await engine.declare({ workspaceId: 'c', name: 'important.txt', purpose: 'precious' });
  const out = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
  return { engine, out };
}

describe('discarding an output whose fork holds an unexported artifact', () => {
  it('is refused with exit 1 naming the artifact, and settles nothing', async () => {
    const { engine, out } = await forkWithArtifact();
    const error = await refusal(engine.settle({ outputId: out, decision: 'discard' }));
    expect(error.code).toBe('WOULD_DISCARD');
    expect(exitCodeOf(error.category)).toBe(1);
    expect(error.message).toContain('important.txt');
    expect(error.message).toContain('nothing was settled');
    expect(error.action).toEqual({ verb: 'settle', args: { outputId: out, decision: 'release' } });
    expect(await treeOf(engine, 'c')).toEqual({ 'important.txt': 'only copy' });
    // Still sealed: it can be released, or discarded once the artifact is out.
    const exported = mkdtempSync(join(tmpdir(), 'hs-discard-export-'));
    dirs.push(exported);
    await engine.export({ workspaceId: 'c', name: 'important.txt', to: join(exported, 'important.txt') });
    const settled = await engine.settle({ outputId: out, decision: 'discard' });
    expect(settled.outcome_summary).toContain('workspace c destroyed');
  });

  it('leaves release as it was: the fork and its artifact stay', async () => {
    const { engine, out } = await forkWithArtifact();
    expect((await engine.settle({ outputId: out, decision: 'release' })).status).toBe('success');
    expect(await treeOf(engine, 'c')).toEqual({ 'important.txt': 'only copy' });
  });
});

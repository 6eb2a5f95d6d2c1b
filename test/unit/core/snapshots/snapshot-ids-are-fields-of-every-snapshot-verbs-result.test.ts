/**
 * Every snapshot verb's result carries the ids it names (checkpoint, output,
 * fork baseline, diff base) as fields of a structured finding, in the JSON
 * document too, while the line markdown shows stays the same text. A caller
 * never has to cut an id out of a sentence.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/core/result/render-json.js';
import type { ResultPackage, StructuredFinding } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

/** The structured findings of the result as its --json document holds them. */
function structured(pkg: ResultPackage, kind: string): StructuredFinding[] {
  const doc = JSON.parse(renderJson(pkg)) as ResultPackage;
  return doc.key_findings.filter((f): f is StructuredFinding => typeof f === 'object' && f.kind === kind);
}

const CP = /^cp-/;
const OUT = /^out-/;

describe('snapshot ids', () => {
  it('are fields of the checkpoint, restore, fork, diff, seal, settle and inspect results', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'p' });
    await write(engine, 'p', 'a.txt', 'one');

    const [cp] = structured(await engine.checkpoint({ workspaceId: 'p', label: 'first' }), 'checkpoint');
    expect(cp).toMatchObject({ text: `checkpoint: ${cp!.checkpoint_id}`, workspace_id: 'p', state: 'valid', label: 'first', file_count: 1, bytes: 3 });
    expect(cp!.checkpoint_id).toMatch(CP);
    expect(cp!.digest).toMatch(/^sha256:/);

    const [restored] = structured(await engine.restore({ workspaceId: 'p', checkpointId: cp!.checkpoint_id as string }), 'checkpoint');
    expect(restored).toMatchObject({ checkpoint_id: cp!.checkpoint_id, state: 'valid' });

    const forked = await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    const [baseline] = structured(forked, 'fork-baseline');
    expect(baseline).toMatchObject({ parent_id: 'p' });
    expect(baseline!.checkpoint_id).toMatch(CP);

    await write(engine, 'c', 'a.txt', 'two');
    const [diffTotals] = structured(await engine.diff({ workspaceId: 'c' }), 'diff-totals');
    expect(diffTotals!.base_checkpoint_id).toMatch(CP);

    const [sealed] = structured(await engine.seal({ workspaceId: 'c' }), 'output');
    expect(sealed).toMatchObject({ text: `output: ${sealed!.output_id}`, fork_id: 'c', parent_id: 'p', state: 'sealed', changes: 1 });
    expect(sealed!.output_id).toMatch(OUT);
    expect(sealed!.seal_checkpoint_id).toMatch(CP);

    const [settled] = structured(await engine.settle({ outputId: sealed!.output_id as string, decision: 'select' }), 'output');
    expect(settled).toMatchObject({ output_id: sealed!.output_id, state: 'settled', decision: 'select' });

    const seen = await engine.inspect({ handle: 'p' });
    expect(structured(seen, 'checkpoint').map((f) => f.checkpoint_id)).toEqual([cp!.checkpoint_id]);
    expect(structured(seen, 'output')).toEqual([expect.objectContaining({ output_id: sealed!.output_id, decision: 'select' })]);
    expect(structured(await engine.inspect({ handle: 'c' }), 'fork-baseline')).toEqual([
      expect.objectContaining({ parent_id: 'p', checkpoint_id: baseline!.checkpoint_id }),
    ]);
  });
});

/** Small steps the snapshot tests share: write, remove and read a workspace's whole tree through the public engine. */
import { join } from 'node:path';
import { createEngine, type Engine } from '../../src/core/engine.js';
import { createFakeProvider } from '../../src/providers/fake/fake-provider.js';
import type { EngineError } from '../../src/core/errors.js';
import type { StructuredFinding } from '../../src/core/result/result-package.js';

export async function write(engine: Engine, workspaceId: string, path: string, text: string): Promise<void> {
  const result = await engine.run({ workspaceId, argv: ['write', path, text] });
  if (result.status !== 'success') throw new Error(`write ${path} failed: ${result.outcome_summary}`);
}

export async function remove(engine: Engine, workspaceId: string, path: string): Promise<void> {
  const result = await engine.run({ workspaceId, argv: ['rm', path] });
  if (result.status !== 'success') throw new Error(`rm ${path} failed: ${result.outcome_summary}`);
}

/** Every file of the workspace and its text. */
export async function treeOf(engine: Engine, workspaceId: string): Promise<Record<string, string>> {
  const listing = await engine.listFiles({ workspaceId, limit: 10_000 });
  const tree: Record<string, string> = {};
  for (const f of listing.key_findings as StructuredFinding[]) {
    if (f.type !== 'file') continue;
    tree[f.path!] = (await engine.readFile({ workspaceId, path: f.path!, maxBytes: 1 << 20 })).bytes.toString('utf8');
  }
  return tree;
}

/** The id a result's structured finding carries: a `checkpoint` finding's checkpoint_id, an `output` finding's output_id (the first one). */
export function idAfter(findings: unknown[], kind: 'checkpoint' | 'output'): string {
  const found = findings.find((f): f is StructuredFinding => typeof f === 'object' && f !== null && (f as StructuredFinding).kind === kind);
  const id = found?.[`${kind}_id`];
  if (typeof id !== 'string') throw new Error(`no ${kind} finding with a ${kind}_id in ${JSON.stringify(findings)}`);
  return id;
}

/** The EngineError a call is refused with (fails the test when it succeeds). */
export async function refusal(call: Promise<unknown>): Promise<EngineError> {
  try {
    await call;
  } catch (error) {
    return error as EngineError;
  }
  throw new Error('expected a refusal, but the call succeeded');
}

/** An engine whose default provider, `plain`, is a fake without the snapshots capability (the exit-3 refusals). */
export function engineWithoutSnapshots(home: string): Engine {
  return createEngine({
    home,
    version: '0.0.0-test',
    defaultProvider: 'plain',
    providers: { plain: () => createFakeProvider({ persistPath: join(home, 'fake.json'), snapshots: false }) },
  });
}

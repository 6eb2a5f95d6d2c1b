/**
 * A refused export's suggested call is the same export with what the refusal
 * asks added, never with what the caller asked dropped (a new user went in a
 * loop: the cap refusal's retry left out overwrite and met
 * DESTINATION_EXISTS, whose retry left out the cap). Following the action
 * once more succeeds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineError } from '../../../../src/core/errors.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
let out: string;
beforeEach(async () => {
  t = makeTestEngine();
  out = mkdtempSync(join(tmpdir(), 'hs-export-retry-'));
  await t.engine.create({ workspaceId: 'w' });
  await t.engine.run({ workspaceId: 'w', argv: ['write', 'f.txt', 'hello'], declares: [{ name: 'f.txt', purpose: 'five bytes' }] });
});
afterEach(() => {
  t.cleanup();
  rmSync(out, { recursive: true, force: true });
});

async function refusal(call: Promise<unknown>): Promise<EngineError> {
  return (await call.then(
    () => {
      throw new Error('the export was not refused');
    },
    (e: unknown) => e,
  )) as EngineError;
}

describe("a refused export's suggested retry", () => {
  it('keeps overwrite when the cap refuses, and following it succeeds', async () => {
    const to = join(out, 'f.txt');
    writeFileSync(to, 'old');
    const error = await refusal(t.engine.export({ workspaceId: 'w', name: 'f.txt', to, overwrite: true, maxBytes: 2 }));
    expect(error.code).toBe('POLICY_DENIED');
    expect(error.action).toEqual({ verb: 'export', args: { workspaceId: 'w', name: 'f.txt', to, maxBytes: 5, overwrite: true } });
    await t.engine.export(error.action!.args as Parameters<TestEngine['engine']['export']>[0]);
    expect(readFileSync(to, 'utf8')).toBe('hello');
  });

  it('keeps a given cap when the destination exists, and following it succeeds', async () => {
    const to = join(out, 'f.txt');
    writeFileSync(to, 'old');
    const error = await refusal(t.engine.export({ workspaceId: 'w', name: 'f.txt', to, maxBytes: 10 }));
    expect(error.code).toBe('DESTINATION_EXISTS');
    expect(error.action).toEqual({ verb: 'export', args: { workspaceId: 'w', name: 'f.txt', to, overwrite: true, maxBytes: 10 } });
    await t.engine.export(error.action!.args as Parameters<TestEngine['engine']['export']>[0]);
    expect(readFileSync(to, 'utf8')).toBe('hello');
  });
});

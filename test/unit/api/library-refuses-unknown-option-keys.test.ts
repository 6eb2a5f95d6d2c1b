/**
 * The library refuses option keys a verb does not take — at the top level
 * and inside `budget`, `inputs` and `declares` — with exit-1 semantics
 * (BAD_ARGUMENT) naming the valid keys, before anything is made; a misspelt
 * `budget: { memory: 1 }` used to be ignored and the default applied (#12
 * item 15). The MCP tools already refuse them through strict schemas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHeadspace, EngineError, type CreateInput, type RunInput } from '../../../src/api/index.js';

const home = mkdtempSync(join(tmpdir(), 'hs-api-keys-'));
const hs = createHeadspace({ home, defaultProvider: 'fake' });
afterAll(() => {
  hs.close();
  rmSync(home, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('library options', () => {
  it('refuses a misspelt budget key, naming the valid ones, and creates nothing', async () => {
    const error = await refusal(hs.create({ workspaceId: 'w', budget: { memory: 1 } } as unknown as CreateInput));
    expect(error.code).toBe('BAD_ARGUMENT');
    expect(error.message).toContain("'budget.memory'");
    expect(error.hint).toContain('memoryBytes');
    expect((await hs.ls({ all: true })).key_findings.join('\n')).not.toContain('w');
  });

  it('refuses an unknown top-level key and one inside run inputs', async () => {
    expect((await refusal(hs.create({ workspaceID: 'typo' } as unknown as CreateInput))).hint).toContain('workspaceId');
    await hs.create({ workspaceId: 'ok' });
    const run = { workspaceId: 'ok', argv: ['true'], declares: [{ name: 'a', purpose: 'b', why: 'c' }] } as unknown as RunInput;
    expect((await refusal(hs.run(run))).message).toContain("'declares[0].why'");
    expect((await refusal(hs.ls({ everything: true } as never))).hint).toBe('valid keys: all');
  });

  it('accepts every key a verb documents', async () => {
    const made = await hs.create({
      workspaceId: 'full',
      profile: 'host',
      network: 'disabled',
      hostPaths: [],
      purpose: 'p',
      owner: 'o',
      ttlSeconds: 60,
      budget: { memoryBytes: 64 * 1024 * 1024 },
    });
    expect(made.status).toBe('success');
  });
});

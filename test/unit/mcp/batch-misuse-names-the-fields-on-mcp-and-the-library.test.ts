/**
 * The batch refusals that the CLI spells with its flags (`--strategy quorum
 * needs --quorum`) name the input fields on the library and MCP: the thrown
 * error's message and hint, and the MCP error document built from it, say
 * `strategy: "quorum"` and `quorum`, never a CLI flag and never a raw mark.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { errorDocument } from '../../../src/mcp/errors.js';
import { makeTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

async function refusal(input: Record<string, unknown>): Promise<EngineError> {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'pool' });
  const jobs = [
    { workspace: 'pool', command: 'true' },
    { workspace: 'pool', command: 'true' },
  ];
  try {
    await t.engine.batch({ jobs, ...input } as never);
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('the batch was not refused');
}

describe('a misused batch on the library and MCP', () => {
  it.each([
    [{ strategy: 'quorum' }, /^strategy: "quorum" needs quorum: how many successes decide$/, /^add quorum from 1 to 2 .*e\.g\. quorum: 2$/],
    [{ strategy: 'any', quorum: 1 }, /^quorum is only for strategy: "quorum", not strategy: "any"$/, /^leave quorum out, or choose strategy: "quorum"$/],
    [{ strategy: 'quorum', quorum: 3 }, /^quorum takes a whole number from 1 to 2$/, /e\.g\. quorum: 2$/],
    [{ strategy: 'all', timeoutSeconds: -1 }, /^timeoutSeconds takes a number of seconds/, /e\.g\. timeoutSeconds: 1$/],
  ])('names the fields for %j', async (input, message, hint) => {
    const error = await refusal(input);
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(hint);
    const document = errorDocument(error);
    expect(document.message).toBe(error.message);
    expect(document.remediation).toMatch(hint);
    expect(`${document.message} ${document.remediation}`).not.toMatch(/--|\{\{/);
  });
});

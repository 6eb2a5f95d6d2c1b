/**
 * A test run that discovered no test ends "OK" with exit 0, and proves
 * nothing (a missing tests/__init__.py is the usual cause): its result keeps
 * the success status but says so in warnings. A run with tests says nothing
 * of the kind. (The fake's `echo` prints what unittest prints.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function runIn(argv: string[]) {
  t = makeTestEngine();
  const workspaceId = (await t.engine.create({})).provenance.workspace_id!;
  return t.engine.run({ workspaceId, argv });
}

describe('a test run with no test', () => {
  it('warns that it proves nothing', async () => {
    const pkg = await runIn(['echo', 'Ran', '0', 'tests', 'in', '0.000s', '&&', 'echo', 'OK']);
    expect(pkg.status).toBe('success');
    expect(pkg.warnings.join('\n')).toContain('unittest ran no test: a run with no tests proves nothing');
  });

  it('does not warn when tests ran', async () => {
    const pkg = await runIn(['echo', 'Ran', '3', 'tests', 'in', '0.001s', '&&', 'echo', 'OK']);
    expect(pkg.warnings.join('\n')).not.toContain('ran no test');
  });
});

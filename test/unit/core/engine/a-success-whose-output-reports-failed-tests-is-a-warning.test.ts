/**
 * A run that exits 0 while its output's test summary reports failures (the
 * test command piped into `tail`, whose status the pipe ends with) read as a
 * plain success (new user). It keeps the success status, which is the
 * command's exit code, and says in warnings that the summary disagrees. A
 * failing exit says nothing of the kind. (The fake's `echo` prints what
 * unittest prints.)
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

const summary = ['echo', 'Ran', '3', 'tests', 'in', '0.001s', '&&', 'echo', 'FAILED', '(failures=1)'];

describe('a success whose output reports failed tests', () => {
  it('keeps success and warns that the summary reports failures', async () => {
    const pkg = await runIn(summary);
    expect(pkg.status).toBe('success');
    expect(pkg.warnings.join('\n')).toContain("exit 0, but unittest's summary reports 1 failed or erroring test(s)");
  });

  it('says nothing of the kind when the exit already failed', async () => {
    const pkg = await runIn([...summary, '&&', 'exit', '1']);
    expect(pkg.status).toBe('failure');
    expect(pkg.warnings.join('\n')).not.toContain('exit 0, but');
  });
});

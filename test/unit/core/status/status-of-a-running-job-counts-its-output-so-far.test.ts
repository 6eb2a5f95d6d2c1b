/**
 * A running job's record counts its output bytes only when it ends; status
 * read that record and said "output 0 bytes" beside the lines it showed (new
 * user, over MCP and the CLI alike). It now reads the log's size so far, as
 * logs and watch do; and watch tells whoever reports progress that size.
 */
import { afterEach, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

it("counts a running job's output so far in status, and watch reports it as the job's output size", async () => {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'w' });
  const running = t.engine.run({ workspaceId: 'w', jobId: 'talker', argv: ['echo', 'twelve bytes', '&&', 'block'] });
  await waitUntilRunning(t.engine, 'w');
  const status = await t.engine.status({ workspaceId: 'w' });
  expect(status.outcome_summary).toContain('latest job talker is running');
  expect(status.resource_usage.output_bytes).toBe(13);
  const sizes: number[] = [];
  const off = t.engine.events.subscribe((event) => {
    if (event.type === 'job.output-size' && event.jobId === 'talker') sizes.push(event.bytes);
  });
  await t.engine.watch({ handle: 'talker', forSeconds: 2, everySeconds: 1 });
  off();
  expect(sizes.length).toBeGreaterThan(0);
  expect(sizes.every((bytes) => bytes === 13)).toBe(true);
  await t.engine.stop({ workspaceId: 'w', apply: true });
  await running;
});

import type { Engine } from '../../src/core/engine.js';

/** Waits (bounded) until `inspect <job>` reads `status`: fixed sleeps flake on a loaded machine. */
export async function waitForJobStatus(engine: Engine, jobId: string, status: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const seen = await engine.inspect({ handle: jobId }).then(
      (r) => r.status,
      () => 'absent',
    );
    if (seen === status) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`job ${jobId} did not read ${status} within ${timeoutMs} ms`);
}

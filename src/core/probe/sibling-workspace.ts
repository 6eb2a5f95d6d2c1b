/**
 * A second workspace for scenarios about what one workspace can do to
 * ANOTHER (per-user kernel limits shared through one host uid, #10 item 4).
 * The probe creates it through the engine's own verbs with the probe's
 * budget, starts one job in it in the background, and always destroys it:
 * `finish` is registered with the scenario's `defer`, so a scenario that
 * throws half-way still leaves nothing behind.
 */
import { readFileSync } from 'node:fs';
import type { EngineContext } from '../context.js';
import type { Budget } from '../policy/policy.js';
import { createWorkspace } from '../verbs/create.js';
import { destroyWorkspace } from '../verbs/destroy.js';
import { runJob } from '../verbs/run.js';
import { randomToken } from './host-fixtures.js';
import type { JobFacts, SiblingJob } from './probe-types.js';

const POLL_MS = 25;

export async function startSiblingJob(ctx: EngineContext, input: { provider: string; budget: Partial<Budget>; argv: string[] }): Promise<SiblingJob> {
  const workspaceId = `probe-sib-${randomToken().slice(0, 12)}`;
  await createWorkspace(ctx, {
    workspaceId,
    provider: input.provider,
    purpose: 'headspace probe: sibling workspace of a cross-workspace scenario (destroyed when the scenario ends)',
    budget: { ...input.budget },
  });
  const jobId = ctx.ids('job');
  const cancel = new AbortController();
  let ended = false;
  const running = runJob(ctx, { workspaceId, argv: input.argv, jobId, signal: cancel.signal })
    .then((ran) => ({ status: ran.status, exitCode: ran.provenance.exit_code }))
    .catch((error: unknown) => ({ status: 'infrastructure_failure' as const, exitCode: null, error }))
    .finally(() => (ended = true));
  // The job's log is written a line at a time as it runs: the host reads it to follow the job.
  const output = () => {
    try {
      return readFileSync(ctx.logPath(jobId), 'utf8');
    } catch {
      return '';
    }
  };
  let finished: Promise<JobFacts> | undefined;
  return {
    workspaceId,
    async waitForLine(prefix, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (
          output()
            .split('\n')
            .some((line) => line.startsWith(prefix))
        )
          return true;
        if (ended || Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    finish() {
      return (finished ??= (async () => {
        cancel.abort();
        const ran = await running;
        const facts: JobFacts = { status: ran.status, exitCode: ran.exitCode, output: output() };
        await destroyWorkspace(ctx, { workspaceId, force: true });
        return facts;
      })());
    },
  };
}

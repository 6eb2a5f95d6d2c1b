/**
 * Shared steps of the detached-run tests (#15): the provider bindings (a
 * command per behaviour on fake and on native) and reading a job's result
 * through the built bin.
 */
import { cli } from './cli.js';

export type DetachProvider = 'fake' | 'native';

/** One command per behaviour, in each provider's words. */
export const COMMANDS: Record<DetachProvider, { ok: string[]; fails: string[]; forever: string[]; late: string[] }> = {
  fake: { ok: ['echo', 'hello-detached'], fails: ['fail', '3'], forever: ['block'], late: ['sleep', '1', '&&', 'echo', 'late-line'] },
  native: {
    ok: ['sh', '-c', 'echo hello-detached'],
    fails: ['sh', '-c', 'exit 3'],
    forever: ['sh', '-c', 'echo started; sleep 60'],
    late: ['sh', '-c', 'sleep 1; echo late-line'],
  },
};

/** create options that work on each provider (native needs the host toolchain for sh). */
export const CREATE_FLAGS: Record<DetachProvider, string[]> = { fake: [], native: ['--profile', 'host'] };

export interface JsonResult {
  status: string;
  outcome_summary: string;
  key_findings: unknown[];
  evidence: Array<{ excerpt?: string; text?: string }>;
  provenance: { job_id: string | null; exit_code: number | null; verb: string };
  attention: Array<{ text: string; action?: { verb: string; args: Record<string, unknown> } }>;
}

export function jsonOf(stdout: string): JsonResult {
  return JSON.parse(stdout) as JsonResult;
}

/** The job's record as inspect reports it. */
export function jobStatus(home: string, jobId: string, env: Record<string, string>): string {
  return jsonOf(cli(home, ['inspect', jobId, '--json'], env).stdout).status;
}

/** Polls until `check` holds or `ms` pass; true when it held. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

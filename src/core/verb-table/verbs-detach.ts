/**
 * The verbs of detached runs (#15 item 3): `wait`. (`run --detach` is run's
 * own `detach` input, in verb-table.ts.)
 */
import { defineVerb, type Zod } from './define-verb.js';

export const waitVerb = defineVerb<'wait', 'wait', ReturnType<typeof waitInput>, { signal: AbortSignal }>({
  name: 'wait',
  method: 'wait',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Wait for detached jobs',
  summary: 'block until jobs end (all, or any) and return the result a foreground run returns; a timeout (exit 4) leaves them running',
  description:
    'Wait until the jobs of run with detach end (all; any: the first) and get the result a foreground run returns. timeoutSeconds ends the wait with status timeout, leaving them running.',
  input: (z: Zod) => waitInput(z),
  runtimeKeys: ['signal'],
  mcpMaximum: { timeoutSeconds: 300 },
  handler: async () => (await import('../verbs/wait.js')).waitForJobs,
});

function waitInput(z: Zod) {
  return z.strictObject({
    jobIds: z.union([z.string(), z.array(z.string()).min(1).max(100)]).describe('a job id, or a list of up to 100 (run returns each in provenance.job_id)'),
    any: z.boolean().optional().describe('end when the first job ends (default: when all have)'),
    timeoutSeconds: z.number().min(0).max(86_400).optional().describe('give up after this many seconds: status timeout, the jobs run on'),
  });
}

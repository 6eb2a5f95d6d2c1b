import type { LogsDump } from '../core/verbs/inspect.js';
import type { CliOutcome } from './main.js';

/** `inspect --logs`: the bytes exactly as kept; a header per job only when there are several. */
export function renderLogsDump(dump: LogsDump): CliOutcome {
  const several = dump.jobs.length > 1;
  const parts: Buffer[] = [];
  for (const job of dump.jobs) {
    if (several) parts.push(Buffer.from(`==> ${job.jobId} <==\n`));
    parts.push(job.output);
  }
  return {
    kind: 'raw',
    bytes: Buffer.concat(parts),
    json: {
      handle: dump.handle,
      jobs: dump.jobs.map((j) => ({ job_id: j.jobId, output_bytes: j.outputBytes, stored_bytes: j.storedBytes, output: j.output.toString('utf8') })),
    },
  };
}

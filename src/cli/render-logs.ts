import { existsSync, readFileSync, statSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import type { LogsDump } from '../core/verbs/inspect.js';
import type { CliOutcome } from './main.js';

/** Above this, `inspect --logs --json` refuses: one JSON string cannot hold it; plain mode streams any size. */
const JSON_LOGS_LIMIT = 256 * 1024 * 1024;

/** `inspect --logs`: the bytes exactly as kept, streamed (on a terminal, controls shown as escapes unless `raw`); a header per job only when there are several. */
export function renderLogsDump(dump: LogsDump, raw = false): CliOutcome {
  const several = dump.jobs.length > 1;
  return {
    kind: 'files',
    raw,
    files: dump.jobs.map((j) => ({ ...(several ? { header: `==> ${j.jobId} <==\n` } : {}), path: j.path })),
    json: () => {
      const total = dump.jobs.reduce((n, j) => n + (existsSync(j.path) ? statSync(j.path).size : 0), 0);
      if (total > JSON_LOGS_LIMIT) {
        throw new EngineError('BAD_ARGUMENT', `the kept output is ${total} bytes, too large for one JSON document`, { hint: `drop --json to stream it, or use: headspace logs <job> --grep PATTERN` });
      }
      return {
        handle: dump.handle,
        jobs: dump.jobs.map((j) => ({ job_id: j.jobId, output_bytes: j.outputBytes, stored_bytes: j.storedBytes, output: existsSync(j.path) ? readFileSync(j.path, 'utf8') : '' })),
      };
    },
  };
}

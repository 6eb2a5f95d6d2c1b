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
    files: dump.jobs.map((j) => ({ ...(several ? { header: `==> ${j.jobId} <==\n` } : {}), open: () => j.open() })),
    json: async () => {
      const total = dump.jobs.reduce((n, j) => n + j.storedBytes, 0);
      if (total > JSON_LOGS_LIMIT) {
        throw new EngineError('BAD_ARGUMENT', `the kept output is ${total} bytes, too large for one JSON document`, {
          hint: `drop --json to stream it, or use: headspace logs <job> --grep PATTERN`,
        });
      }
      const jobs = [];
      for (const j of dump.jobs) jobs.push({ job_id: j.jobId, output_bytes: j.outputBytes, stored_bytes: j.storedBytes, output: await readAll(j.open()) });
      return { handle: dump.handle, jobs };
    },
  };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A markdown result shrunk to --max-result-bytes names where the whole one
 * is: `inspect JOB --json` for a run (inspect re-renders the job's own
 * package), the same call with --json for a verb that only reads (a new user
 * was sent to a job's inspect for a batch's status, whose package is
 * another), and no command for a call that changed something (it is not
 * offered again): the JSON rendering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

let home: string;
let cleanup: () => Promise<void>;
beforeAll(() => {
  ({ home, cleanup } = makeHome());
  cli(home, ['create', '--workspace-id', 'w']);
  for (let i = 0; i < 8; i++) cli(home, ['create', '--workspace-id', `other-${i}`]);
});
afterAll(() => cleanup());

const markers = (stdout: string) => stdout.split('\n').filter((line) => /truncated: |result clipped/.test(line));

describe('a clipped result', () => {
  it('of a verb that only reads names the same call with --json', () => {
    const out = cli(home, ['ls', '--max-result-bytes', '512']);
    expect(out.code).toBe(0);
    expect(markers(out.stdout).join('\n')).toContain('headspace ls --max-result-bytes 512 --json`');
  });

  it('of a run names the inspect of its job', () => {
    const out = cli(home, ['run', '--max-result-bytes', '512', 'w', 'sh', '-c', 'for i in $(seq 400); do echo line $i; done; exit 3']);
    const job = /job-[0-9a-f]{12}/.exec(out.stdout)?.[0];
    expect(markers(out.stdout).join('\n')).toContain(`headspace inspect ${job} --json`);
  });

  it('of a call that changed something names no command to repeat', () => {
    const out = cli(home, ['fork', 'w', '--count', '8', '--max-result-bytes', '600']);
    expect(out.code).toBe(0);
    const shown = markers(out.stdout);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.join('\n')).not.toContain('headspace ');
    expect(shown.join('\n')).toContain('in the JSON rendering');
  });
});

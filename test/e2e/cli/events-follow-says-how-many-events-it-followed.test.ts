/**
 * `events follow` prints each event as one JSON line on stdout and, when it
 * ends, how many it followed: on stderr in text mode, so stdout stays JSON
 * lines only (a window with no event used to end with nothing printed at
 * all), and under --json as one more line on stdout, the result package.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('events follow', () => {
  it('prints each event as a JSON line, then how many it followed', () => {
    const quiet = cli(home, ['events', 'follow', '--for', '0.3']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toBe('followed 0 event(s); nothing was claimed or acknowledged\n');

    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['run', '--job-id', 'job-1', 'w', 'true']).code).toBe(0);
    const text = cli(home, ['events', 'follow', '--after-seq', '0', '--for', '0.3']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ name: 'job.succeeded', job_id: 'job-1' });
    expect(text.stderr).toBe('followed 1 event(s); nothing was claimed or acknowledged\n');

    const json = cli(home, ['events', 'follow', '--after-seq', '0', '--for', '0.3', '--json']);
    const [event, report, ...rest] = json.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(JSON.parse(event!)).toMatchObject({ job_id: 'job-1' });
    expect(JSON.parse(report!)).toMatchObject({ outcome_summary: 'followed 1 event(s); nothing was claimed or acknowledged' });
  });
});

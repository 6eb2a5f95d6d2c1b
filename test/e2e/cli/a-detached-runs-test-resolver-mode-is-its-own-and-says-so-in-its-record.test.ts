/**
 * #18 F4: HEADSPACE_TEST_RESOLVER_MAP (test mode: the proxy answers some
 * names itself, loopback unchecked) stuck to the home's shared supervisor,
 * which inherited it from whichever caller started it, so a later detached
 * run without it still ran in test mode. Now the supervisor never takes it
 * from its environment: the caller's map travels in that job's handover, the
 * job's recorded network summary says test mode (wait and inspect show it),
 * and a later run under the same supervisor without the variable is not in
 * test mode.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { jsonOf } from '../../helpers/detached.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const MAP = { HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify({ 'api.test': '127.0.0.1' }) };
const networkLine = (stdout: string) => (jsonOf(stdout).key_findings as string[]).find((k) => k.startsWith('network:')) ?? '';

describe("a detached run's test resolver mode", () => {
  it('is recorded for the job that asked for it, and not inherited by a later run under the same supervisor', () => {
    expect(cli(home, ['create', '--workspace-id', 'net', '--concurrency', '2', '--network', 'allow=api.test']).code).toBe(0);
    // The first job keeps the shared supervisor (started with the variable in its caller's environment) busy while the second arrives.
    const first = cli(home, ['run', '--json', '--detach', '--job-id', 'with-map', 'net', 'sleep', '2', '&&', 'fetch', 'https://api.test/'], MAP);
    expect(first.code, first.stderr).toBe(0);
    // The supervisor's own environment never holds the map, whoever started it.
    const supervisorPid = /shared supervisor \(supervisor pid (\d+)\)/.exec(first.stdout)?.[1];
    expect(supervisorPid, first.stdout).toBeDefined();
    expect(readFileSync(`/proc/${supervisorPid}/environ`, 'latin1')).not.toContain('HEADSPACE_TEST_RESOLVER_MAP');
    const second = cli(home, ['run', '--json', '--detach', '--job-id', 'without-map', 'net', 'fetch', 'https://api.test/']);
    expect(second.code, second.stderr).toBe(0);

    const withMap = cli(home, ['wait', '--json', 'with-map']);
    expect(withMap.code, withMap.stderr).toBe(0);
    expect(networkLine(withMap.stdout)).toMatch(/^network: 1 allowed .*\[test mode: HEADSPACE_TEST_RESOLVER_MAP/);
    expect(networkLine(cli(home, ['inspect', '--json', 'with-map']).stdout)).toContain('[test mode:');

    const withoutMap = cli(home, ['wait', '--json', 'without-map']);
    expect(withoutMap.code, withoutMap.stderr).toBe(0);
    expect(networkLine(withoutMap.stdout)).toMatch(/^network: 1 allowed/);
    expect(networkLine(withoutMap.stdout)).not.toContain('test mode');
  });
});

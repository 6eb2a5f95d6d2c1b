/**
 * The recording guarantee for secrets at egress (#18 item 3): a value planted
 * with run --secret reaches its (loopback, test-CA) upstream, and nowhere
 * else: not the job (its whole environment, written into the workspace and
 * printed to its own output, holds only the placeholder), not a result,
 * the state store with its WAL, the journal, the logs or any other file
 * under the home, not the workspace's files, and, for a detached run, not
 * its supervisor's argv or environment while the job runs.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { eventually, jsonOf } from '../../helpers/detached.js';
import { recordedSurfaces } from '../../helpers/recorded-surfaces.js';
import { makeTestCa, startUpstreams, type TestCa, type Upstreams } from '../../helpers/tls-upstream.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const VALUE = `secretvalue-${randomBytes(12).toString('hex')}`;
let ca: TestCa;
let up: Upstreams;
let env: Record<string, string>;

beforeAll(async () => {
  ca = makeTestCa(['api.test']);
  up = await startUpstreams(ca);
  env = {
    HEADSPACE_PROVIDER: 'native',
    HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify({ 'api.test': '127.0.0.1' }),
    HEADSPACE_TEST_UPSTREAM_CA: ca.ca,
    API_TOKEN: VALUE,
  };
});
afterAll(async () => {
  cli(home, ['destroy', 'rec', '--force'], env);
  await cleanup();
  await up?.close();
});

describe.runIf(readiness.ready && process.getuid?.() === 0)(`a secret's value on native (needs a ready native host as root: ${readiness.reason})`, () => {
  it('reaches its upstream and appears on no recording surface, in no workspace file and in no job', async () => {
    const outputs: string[] = [];
    expect(cli(home, ['create', '--workspace-id', 'rec', '--network', `allow=api.test:${up.httpsPort}`], env).code).toBe(0);
    const curl = `curl -sS -o /dev/null -H "Authorization: Bearer $API_TOKEN" https://api.test:${up.httpsPort}`;
    const ran = await cliAsync(
      home,
      [
        'run',
        '--json',
        '--secret',
        `API_TOKEN@api.test:${up.httpsPort}`,
        'rec',
        'sh',
        '-c',
        `env > env.txt; env; cat /proc/self/environ > environ.bin; ${curl}/fg`,
      ],
      env,
    );
    outputs.push(ran.stdout, ran.stderr);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    // The job printed its whole environment: it held the placeholder, so printing it gives nothing away.
    expect(ran.stdout).toMatch(/API_TOKEN=hs-secret-API_TOKEN-[0-9a-f]{32}/);

    // Detached: the value travels over the supervisor's socket; the supervisor's argv and environment never hold it.
    const started = await cliAsync(
      home,
      [
        'run',
        '--json',
        '--detach',
        '--job-id',
        'sj',
        '--secret',
        `API_TOKEN@api.test:${up.httpsPort}`,
        'rec',
        'sh',
        '-c',
        `${curl}/bg && echo "reached-$((40 + 2))" && sleep 60`,
      ],
      env,
    );
    outputs.push(started.stdout, started.stderr);
    expect(started.code, started.stderr).toBe(0);
    const supervisor = Number(/supervisor pid (\d+)/.exec(started.stdout)?.[1]);
    expect(await eventually(() => cli(home, ['logs', 'sj'], env).stdout.includes('reached-42'), 20_000)).toBe(true);
    const alive = [`/proc/${supervisor}/cmdline`, `/proc/${supervisor}/environ`].map((path) => readFileSync(path).toString('latin1'));
    cli(home, ['stop', 'rec', '--apply', '--grace-seconds', '0'], env);
    outputs.push(cli(home, ['wait', '--json', 'sj'], env).stdout);

    // Both reached the upstream with the value: the secret was used.
    expect(up.heard.filter((h) => h.headers.authorization === `Bearer ${VALUE}`).map((h) => h.url)).toEqual(['/fg', '/bg']);
    // What the job wrote into the workspace (its environment, twice) holds the placeholder, never the value.
    const read = cli(home, ['run', '--json', 'rec', 'sh', '-c', 'cat env.txt; tr "\\0" "\\n" < environ.bin'], env);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.match(/API_TOKEN=hs-secret-API_TOKEN-/g)?.length).toBe(2);
    outputs.push(read.stdout);
    for (const args of [
      ['inspect', 'rec', '--json'],
      ['ls', '--json'],
      ['receipt', 'sj'],
      ['doctor', '--provider', 'native'],
    ])
      outputs.push(cli(home, args, env).stdout);
    expect(jsonOf(started.stdout).key_findings.join('\n')).not.toContain(VALUE);
    const texts = [...outputs, ...alive, ...recordedSurfaces(home).map((s) => s.text)];
    for (const text of texts) expect(text.includes(VALUE), 'the value leaked').toBe(false);
  });
});

/**
 * On a tunnel of a job with secrets every read holds back its last bytes
 * whatever they are (the redactor may not tell the job, by when bytes come,
 * which could begin a value). A server that sends an event and then waits
 * would have had it held until its next event; the proxy now lets a quiet
 * upstream's held bytes go after QUIET_FLUSH_MS. Here a host streams one
 * event, waits 1.5 s, and streams another: the job reads the first well
 * before the second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { startSecretHost, type SecretHost } from '../../helpers/tls-upstream.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
let host: SecretHost;
let port = 0;
let env: Record<string, string>;

beforeAll(async () => {
  host = await startSecretHost(['api.test'], (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    setTimeout(() => res.end('data: second\n\n'), 1500);
  });
  port = host.port;
  env = { ...host.env, TOKEN: 'a-secret-value-for-the-stream-test' };
});
afterAll(async () => {
  await home.cleanup();
  await host?.close();
});

describe.runIf(readiness.ready && process.getuid?.() === 0)(`a streamed answer on native (needs a ready native host as root: ${readiness.reason})`, () => {
  it('reaches a job with secrets event by event, not held until the next', async () => {
    expect(cli(home.home, ['create', '--workspace-id', 'stream', '--network', `allow=api.test:${port}`], env).code).toBe(0);
    const script = `curl -sSN https://api.test:${port}/events | while IFS= read -r line; do [ -n "$line" ] && echo "$(date +%s%N) $line"; done; true`;
    const ran = await cliAsync(home.home, ['run', '--json', '--secret', `TOKEN@api.test:${port}`, 'stream', 'sh', '-c', script], env);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const lines = (JSON.parse(ran.stdout) as { evidence: Array<{ excerpt: string }> }).evidence[0]!.excerpt.trim().split('\n');
    const at = (word: string) => Number(lines.find((l) => l.endsWith(`data: ${word}`))?.split(' ')[0]) / 1e6;
    expect(lines.length, lines.join('\n')).toBe(2);
    expect(at('second') - at('first'), 'ms between the events as the job read them').toBeGreaterThan(1000);
  });
});

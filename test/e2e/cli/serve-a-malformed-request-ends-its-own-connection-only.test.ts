/**
 * Red team (#20 serve): one connection's request must never end the server.
 * A header whose `env` was null passed the old check and threw in a socket
 * handler, ending the server and every call it was answering. Now a header
 * is checked whole (parseServeRequest) and anything one connection makes
 * throw ends that connection only: after a burst of malformed headers the
 * same server still answers a call.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { frame } from '../../../src/cli/serve/serve-frames.js';
import { cli, makeHome, REPO } from '../../helpers/cli.js';
import { serversOf, socketOf, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

/** Sends one H frame with `header` and waits until the server closes the connection. */
function sendHeader(header: unknown): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(socketOf(home), () => socket.write(frame('H', JSON.stringify(header))));
    socket.on('data', () => undefined);
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}

describe('headspace serve given a malformed request', () => {
  it('drops that connection and keeps answering others', async () => {
    const served = startServe(home);
    await until(() => served.stdout().includes('listening'));
    const [pid] = serversOf(home);
    const build = (JSON.parse(readFileSync(join(REPO, 'dist', 'cli-bundle', 'build.json'), 'utf8')) as { build: string }).build;
    const good = { v: 1, build, argv: ['ls'], cwd: '/', env: {}, stdoutIsTty: false, stderrIsTty: false };
    for (const bad of [
      { ...good, env: null },
      { ...good, env: [] },
      { ...good, env: { A: 1 } },
      { ...good, argv: [{}] },
      { ...good, argv: 'ls' },
      { ...good, cwd: 7 },
      { ...good, build: null },
      { ...good, stdoutIsTty: 'yes' },
      null,
      [good],
    ])
      await sendHeader(bad);
    expect(serversOf(home)).toEqual([pid]);
    const after = cli(home, ['ls', '--json'], { HEADSPACE_SERVE: 'require' });
    expect(after.code, after.stderr).toBe(0);
    expect(serversOf(home)).toEqual([pid]);
    expect(cli(home, ['serve', '--stop']).code).toBe(0);
    expect(await served.exited).toBe(0);
  }, 60_000);
});

/**
 * stop() called from a different OS process (a fresh provider over the same
 * root, as `headspace stop --apply` would be) ends every process of the
 * running job (TERM, then a kill after the grace), returns only when the
 * cgroup is empty, and the original run() reports stopped=true. The second
 * process runs plain Node on the built provider in dist/ (npm test builds
 * before testing; compiling a private copy with tsc here cost ~8 s of CPU, #20).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO } from '../../../helpers/cli.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const run = promisify(execFile);

describe.runIf(readiness.ready)(`stop across processes (needs a ready native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  const out = mkdtempSync(join(tmpdir(), 'hs-native-stop-'));
  beforeAll(async () => {
    assertBuilt();
    const built = pathToFileURL(join(REPO, 'dist', 'providers', 'native', 'native-provider.js')).href;
    writeFileSync(
      join(out, 'stop.mjs'),
      `import { createNativeProvider } from ${JSON.stringify(built)};\nconst [root, id] = process.argv.slice(2);\nconsole.log(JSON.stringify(await createNativeProvider({ root }).stop(id)));\n`,
    );
    ws = await makeNativeWorkspace();
  }, 120_000);
  afterAll(async () => {
    await ws?.dispose();
    rmSync(out, { recursive: true, force: true });
  });

  it('ends the job and its detached children, and run() says stopped', async () => {
    const running = ws.run(['sh', '-c', 'setsid sleep 71.5 & sleep 72.5']);
    await new Promise((r) => setTimeout(r, 700));
    const { stdout } = await run(process.execPath, [join(out, 'stop.mjs'), ws.root, ws.workspaceId]);
    expect(JSON.parse(stdout)).toEqual({ stopped: true, empty: true });
    const { outcome } = await running;
    expect(outcome.stopped).toBe(true);
    // stop sends TERM before it kills (#12 item 3): the shell ends by TERM, which bwrap's init
    // reports as 128 + 15; null only when the kill after the grace came first.
    expect([null, 143]).toContain(outcome.exitCode);
    const survivors = await run('pgrep', ['-f', 'sleep 7[12].5']).then(
      (r) => r.stdout,
      () => '',
    );
    expect(survivors).toBe('');
  });
});

/**
 * The Landlock ruleset the exec shim applies (#10 item 13) leaves real work
 * alone: python threads and multiprocessing, a C compiler whose output runs
 * from /workspace, git, make, sqlite, files in /tmp and /dev/shm. (No
 * pseudo-terminal: jobs have none since red team 2, item 2; see
 * jobs-get-no-pseudo-terminal.test.ts.) And it refuses what the bind layout
 * alone would allow: writing the job's own /proc entries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

const WORK = `set -e
python3 -c "import threading; t = threading.Thread(target=print, args=('thread-ok',)); t.start(); t.join()"
python3 -c "import multiprocessing as m; print('pool-ok', m.Pool(2).map(abs, [-1, -2]))"
printf 'int main(void){return 0;}' > /workspace/m.c && cc -o /workspace/m /workspace/m.c && /workspace/m && echo cc-ok
cd /workspace && git init -q repo && cd repo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && echo git-ok
cd /workspace && printf 'all:\\n\\t@echo make-ok\\n' > Makefile && make -s
python3 -c "import sqlite3; print('sqlite-ok', sqlite3.connect('/workspace/d.db').execute('select 1').fetchone()[0])"
echo x > /tmp/t && echo x > /dev/shm/s && echo x > /dev/null && echo tmp-ok`;

const REFUSED = `for attempt in "echo hs > /proc/self/comm" "echo 1000 > /proc/self/oom_score_adj"; do
  if sh -c "$attempt" 2>/dev/null; then echo "allowed: $attempt"; else echo "refused: $attempt"; fi
done`;

describe.runIf(readiness.ready)(`jobs under Landlock${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace();
  });
  afterAll(() => ws?.dispose());

  it('run python, cc, git, make and sqlite, and write /workspace, /tmp and /dev/shm', async () => {
    const { outcome, stdout, stderr } = await ws.run(['sh', '-c', WORK]);
    expect(outcome.exitCode, stderr).toBe(0);
    for (const ok of ['thread-ok', 'pool-ok', 'cc-ok', 'git-ok', 'make-ok', 'sqlite-ok', 'tmp-ok']) expect(stdout).toContain(ok);
  });

  it('are refused writes to their own /proc entries, which the binds alone allow', async () => {
    const { stdout } = await ws.run(['sh', '-c', REFUSED]);
    expect(stdout).not.toContain('allowed:');
    expect(stdout.match(/^refused:/gm)).toHaveLength(2);
  });
});

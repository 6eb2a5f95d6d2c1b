/**
 * `headspace serve` answers calls at once in one process, so nothing of one
 * call's may leak into another's: four puts at once from four directories
 * each read their own caller's ./in.txt, and each call's --env value is its
 * own caller's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { baseEnv } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
const dirs = [0, 1, 2, 3].map((i) => mkdtempSync(join(tmpdir(), `hs-serve-c${i}-`)));
afterAll(async () => {
  await cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function served(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { cwd, env: baseEnv(home, { HEADSPACE_SERVE: 'require', ...env }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('calls at once through one headspace serve', () => {
  it("each read their own caller's directory and environment", async () => {
    // One workspace per caller: calls on one workspace at once are refused as busy, by design.
    for (const i of [0, 1, 2, 3]) expect(cli(home, ['create', '--workspace-id', `w${i}`], { HEADSPACE_SERVE: 'auto' }).code).toBe(0);
    dirs.forEach((dir, i) => writeFileSync(join(dir, 'in.txt'), 'x'.repeat(10 * (i + 1))));
    const puts = await Promise.all(dirs.map((dir, i) => served(['put', `w${i}`, 'in.txt', 'copy.txt'], dir)));
    for (const put of puts) expect(put.code, put.stderr).toBe(0);
    for (const i of [0, 1, 2, 3]) {
      const files = JSON.parse(cli(home, ['ls-files', `w${i}`, '--json'], { HEADSPACE_SERVE: 'off' }).stdout) as {
        key_findings: Array<{ path: string; size_bytes: number }>;
      };
      expect(files.key_findings.map((f) => [f.path, f.size_bytes])).toEqual([['copy.txt', 10 * (i + 1)]]);
    }
    // --env NAME reads the caller's value: an unset one is refused for that caller alone.
    const [set, unset] = await Promise.all([
      served(['run', '--env', 'ONLY_HERE', 'w0', 'echo', 'hi'], dirs[0]!, { ONLY_HERE: 'v' }),
      served(['run', '--env', 'ONLY_HERE', 'w1', 'echo', 'hi'], dirs[1]!),
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('--env ONLY_HERE: the variable is not set in your environment');
  }, 60_000);
});

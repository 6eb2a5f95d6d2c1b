/** Calls of the built bin on the native provider that must succeed, for the native e2e tests: each fails the test with its stderr otherwise. */
import { expect } from 'vitest';
import { cli } from './cli.js';

export function nativeCalls(home: string): {
  /** Runs the bin; its stdout. */
  ok: (args: string[]) => string;
  /** Runs a shell script as a job in `ws`; its result's stdout. */
  sh: (ws: string, script: string) => string;
  /** Runs a shell script as a job in `ws`; the output it printed (its first evidence excerpt). */
  shOut: (ws: string, script: string) => string;
} {
  const ok = (args: string[]) => {
    const out = cli(home, args, { HEADSPACE_PROVIDER: 'native' });
    expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
    return out.stdout;
  };
  return {
    ok,
    sh: (ws, script) => ok(['run', ws, 'sh', '-c', script]),
    shOut: (ws, script) => (JSON.parse(ok(['run', '--json', ws, 'sh', '-c', script])) as { evidence: Array<{ excerpt: string }> }).evidence[0]!.excerpt,
  };
}

/** Helpers for the batch tests (#16): write a spec, run a batch through the built bin, read its JSON result. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, type CliRun } from './cli.js';

export interface BatchJob {
  workspace?: string;
  fork?: string;
  command: string | string[];
  name?: string;
}

export interface BatchFinding {
  kind?: string;
  text: string;
  id?: string;
  status?: string;
  started_at?: string;
  finished_at?: string;
}

export interface BatchPackage {
  status: string;
  outcome_summary: string;
  key_findings: Array<BatchFinding | string>;
  warnings: string[];
}

let specs = 0;

export function writeSpec(home: string, jobs: BatchJob[]): string {
  const path = join(home, `spec-${++specs}.json`);
  writeFileSync(path, JSON.stringify({ jobs }));
  return path;
}

export function runBatch(home: string, args: string[], jobs: BatchJob[], env: Record<string, string> = {}): CliRun & { pkg: BatchPackage | null } {
  const run = cli(home, ['batch', '--json', ...args, '--spec', writeSpec(home, jobs)], env);
  let pkg: BatchPackage | null = null;
  try {
    pkg = JSON.parse(run.stdout) as BatchPackage;
  } catch {
    pkg = null;
  }
  return { ...run, pkg };
}

/** Each member's line (kind job), in spec order. */
export function memberLines(pkg: BatchPackage): BatchFinding[] {
  return pkg.key_findings.filter((f): f is BatchFinding => typeof f === 'object' && f.kind === 'job');
}

export function groupIdOf(pkg: BatchPackage): string {
  return (pkg.key_findings.find((f) => typeof f === 'object' && f.kind === 'batch') as BatchFinding).id!;
}

/**
 * Each strategy's join, the same cases on every provider (#16 "each strategy
 * on native and fake"): small commands (true, false, sleep) in one
 * workspace with two jobs at once.
 */
export function strategyCases(home: string, ws: string, env: Record<string, string>) {
  const at = (command: string, name: string): BatchJob => ({ workspace: ws, command, name });
  const statuses = (pkg: BatchPackage) => Object.fromEntries(memberLines(pkg).map((l) => [l.text.split(/[: ]/)[0]!, l.status]));
  return {
    race: () => {
      const won = runBatch(home, ['--strategy', 'race', '--concurrency', '2'], [at('sleep 29.7', 'slow'), at('true', 'fast')], env);
      const lost = runBatch(home, ['--strategy', 'race', '--concurrency', '2'], [at('sleep 29.7', 'slow'), at('false', 'fast')], env);
      return { won, lost, wonStatuses: statuses(won.pkg!), lostStatuses: statuses(lost.pkg!) };
    },
    any: () => {
      const found = runBatch(home, ['--strategy', 'any', '--concurrency', '1'], [at('false', 'bad'), at('true', 'good'), at('sleep 29.7', 'late')], env);
      const exhausted = runBatch(home, ['--strategy', 'any', '--concurrency', '2'], [at('false', 'one'), at('false', 'two')], env);
      return { found, exhausted, foundStatuses: statuses(found.pkg!) };
    },
    quorum: () => {
      const run = runBatch(
        home,
        ['--strategy', 'quorum', '--quorum', '2', '--concurrency', '2'],
        [at('true', 'first'), at('sleep 29.7', 'slow'), at('true', 'third'), at('true', 'never')],
        env,
      );
      return { run, statuses: statuses(run.pkg!) };
    },
    all: () => {
      const run = runBatch(home, ['--strategy', 'all', '--concurrency', '2'], [at('false', 'bad'), at('sleep 29.7', 'slow'), at('true', 'queued')], env);
      return { run, statuses: statuses(run.pkg!) };
    },
    allSettled: () => {
      const run = runBatch(home, ['--strategy', 'allSettled', '--concurrency', '2'], [at('false', 'one'), at('true', 'two'), at('false', 'three')], env);
      return { run, statuses: statuses(run.pkg!) };
    },
  };
}

export type StrategyCases = ReturnType<typeof strategyCases>;

/** Host processes whose argv `match` accepts (from /proc; a process gone meanwhile is skipped). */
export function hostProcesses(match: (argv: string[]) => boolean): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return match(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Budgets past what the host has (second red team, item 2): a workspace
 * asking for more storage than the disk holding HEADSPACE_HOME has free
 * (sparse images reserve nothing, so a job then filled the host's disk
 * through it), or more memory than the host has in all, must be refused at
 * create. Each is asked of a side workspace (ProbeHost.trySideWorkspace),
 * which is destroyed at once; were one accepted, its only job is `true`,
 * and its sparse image costs the host no more than its ext4 metadata.
 */
import { statfs } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { BUDGET_FIELDS } from '../policy/budget-fields.js';
import { notAttempted, type Scenario, type SideWorkspaceOutcome } from './probe-types.js';

const DONE = 'probe-done';
const GiB = 1024 ** 3;

export interface CapacityAsk {
  /** What the side workspace asked for, and the host fact it is past; undefined: not expressible within the static range. */
  asked: number;
  host: string;
  outcome: SideWorkspaceOutcome;
}

export interface CapacityFacts {
  storage: CapacityAsk | undefined;
  memory: CapacityAsk | undefined;
}

export const budgetPastHost: Scenario<CapacityFacts> = {
  id: 'budget-past-host',
  title: 'a budget the host does not have',
  attempts:
    'create side workspaces asking for twice the free space of the disk under HEADSPACE_HOME, and for twice the host memory; both must be refused at create',
  requires: ['memory'],
  async prepare(host) {
    const max = (key: 'storageBytes' | 'memoryBytes') => BUDGET_FIELDS.find((f) => f.key === key)!.max;
    const disk = await statfs(host.home);
    const free = disk.bavail * disk.bsize;
    const storageAsk = Math.ceil((2 * free + GiB) / GiB) * GiB;
    const memoryAsk = Math.ceil((2 * totalmem()) / GiB) * GiB;
    const attempt = async (budget: { storageBytes: number } | { memoryBytes: number }, asked: number, what: string): Promise<CapacityAsk> => ({
      asked,
      host: what,
      outcome: await host.trySideWorkspace([], async () => undefined, ['true'], budget),
    });
    const facts: CapacityFacts = {
      storage:
        storageAsk <= max('storageBytes') ? await attempt({ storageBytes: storageAsk }, storageAsk, `${gib(free)} free under HEADSPACE_HOME`) : undefined,
      memory: memoryAsk <= max('memoryBytes') ? await attempt({ memoryBytes: memoryAsk }, memoryAsk, `${gib(totalmem())} of memory`) : undefined,
    };
    return { argv: ['sh', '-c', `echo ${DONE}`], observe: async () => facts };
  },
  judge(job, facts) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const asks = [
      ['storage', facts.storage],
      ['memory', facts.memory],
    ] as const;
    const tried = asks.filter((a): a is readonly ['storage' | 'memory', CapacityAsk] => a[1] !== undefined);
    if (tried.length === 0) return { verdict: 'skipped', evidence: 'this host is larger than the static budget ranges: no budget past it can be asked for' };
    const escapes = tried.filter(([, a]) => !('refused' in a.outcome) || a.outcome.at !== 'create');
    if (escapes.length > 0) {
      return {
        verdict: 'escaped',
        evidence: escapes
          .map(
            ([name, a]) =>
              `a workspace with ${gib(a.asked)} of ${name} (the host has ${a.host}) was created${'refused' in a.outcome ? `; only its job was refused (${a.outcome.refused})` : ''}`,
          )
          .join('; '),
      };
    }
    // Refused for another reason (a failed mkfs, say): the capacity rule was not what held.
    const other = tried.filter(([, a]) => 'refused' in a.outcome && a.outcome.refused !== 'POLICY_DENIED');
    if (other.length > 0)
      return {
        verdict: 'skipped',
        evidence: `refused at create, but not as policy_denied: ${other.map(([name, a]) => `${name}: ${'refused' in a.outcome ? a.outcome.refused : ''}`).join('; ')}`,
      };
    return {
      verdict: 'contained',
      evidence: tried
        .map(([name, a]) => `${gib(a.asked)} of ${name} (the host has ${a.host}) was refused at create (${'refused' in a.outcome ? a.outcome.refused : ''})`)
        .join('; '),
    };
  },
};

function gib(bytes: number): string {
  return `${(bytes / GiB).toFixed(1)} GiB`;
}

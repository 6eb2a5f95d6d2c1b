import { EngineError, inputRef } from '../errors.js';
import type { Budget } from './policy.js';

/**
 * One entry per budget field: the CLI generates one `create` flag from each,
 * and a test checks that every Budget key has an entry (so a new field cannot
 * ship without its flag).
 *
 * The maxima are what any host could sensibly give one workspace; the host a
 * workspace lands on is checked at create as well (host-capacity.ts). Memory
 * 1 TiB; pids 32768 (Linux's default pid_max on small hosts); storage 16 TiB
 * (the largest file ext4 holds with 4 KiB blocks, and the image is one host
 * file; up to 1 PiB was accepted, and mkfs of 10 TiB alone wrote 143 MiB of
 * metadata to the host); output 4 GiB per job (kept in the engine's own
 * state directory on the host). They were 64 TiB, 65536, 1 PiB and 16 GiB.
 */
/**
 * Jobs at once per workspace, at most (#12 item 8). They share the
 * workspace's memory, cpu and pids budgets, so many more than this would
 * only divide the same budgets thinner; a provider may allow fewer
 * (ProviderCapabilities.jobsAtOnce).
 */
export const MAX_JOBS_AT_ONCE = 64;

export interface BudgetField {
  key: keyof Budget;
  flag: string;
  kind: 'integer' | 'number';
  min: number;
  max: number;
  unit: string;
  description: string;
}

export const BUDGET_FIELDS: readonly BudgetField[] = [
  {
    key: 'memoryBytes',
    flag: '--memory-bytes',
    kind: 'integer',
    min: 16 * 1024 * 1024,
    max: 2 ** 40,
    unit: 'bytes',
    description: 'memory ceiling; the kernel kills the job past it',
  },
  { key: 'cpuLimit', flag: '--cpu-limit', kind: 'number', min: 0.01, max: 1024, unit: 'cores', description: 'CPU rate, in cores' },
  { key: 'pidsLimit', flag: '--pids-limit', kind: 'integer', min: 1, max: 32768, unit: 'processes', description: 'processes and threads at once' },
  {
    key: 'storageBytes',
    flag: '--storage-bytes',
    kind: 'integer',
    min: 1024 * 1024,
    max: 2 ** 44,
    unit: 'bytes',
    description: 'bytes the workspace files may occupy',
  },
  { key: 'wallClockSeconds', flag: '--wall-clock-seconds', kind: 'number', min: 0.1, max: 7 * 24 * 3600, unit: 'seconds', description: 'wall clock per job' },
  {
    key: 'outputBytes',
    flag: '--output-bytes',
    kind: 'integer',
    min: 1024,
    max: 2 ** 32,
    unit: 'bytes',
    description:
      'stdout+stderr kept per job; past it the first bytes and the last lines are kept around a marked gap, the rest counted (truncated), and the job runs on',
  },
  {
    key: 'concurrency',
    flag: '--concurrency',
    kind: 'integer',
    min: 1,
    max: MAX_JOBS_AT_ONCE,
    unit: 'jobs',
    description:
      'jobs at once in the workspace; they share its memory, cpu and pids budgets (one cgroup), each with its own record, stop and result; one more is refused busy',
  },
];

/**
 * Parses a budget value given as text. Accepts plain numbers and, for byte
 * fields, the suffixes K, M, G (powers of 1024), e.g. `512M`.
 */
export function parseBudgetValue(field: BudgetField, raw: string): number {
  const text = raw.trim();
  const match = /^(\d+(?:\.\d+)?)([kKmMgGtT]i?[bB]?)?$/.exec(text);
  const invalid = () =>
    new EngineError(
      'BAD_BUDGET',
      `${field.flag} takes a ${field.kind === 'integer' ? 'whole number' : 'number'} of ${field.unit} from ${field.min} to ${field.max}, not '${truncate(text)}'`,
      {
        hint: `for example ${field.flag} ${field.key === 'memoryBytes' ? '512M' : String(field.min === 1 ? 8 : field.min)}`,
      },
    );
  if (!match) throw invalid();
  let value = Number(match[1]);
  const suffix = match[2]?.[0]?.toUpperCase();
  if (suffix !== undefined) {
    if (field.unit !== 'bytes') throw invalid();
    const power = { K: 1, M: 2, G: 3, T: 4 }[suffix as 'K' | 'M' | 'G' | 'T'];
    value = value * 1024 ** power;
  }
  if (field.kind === 'integer') {
    if (!Number.isInteger(value)) throw invalid();
  }
  if (!Number.isFinite(value) || value < field.min || value > field.max) throw invalid();
  return value;
}

/**
 * Checks a budget given as data (library or stored state), field by field. A verb's budget input (create's,
 * fork's) is refused naming the field as that verb's input, `budget.memoryBytes`, which the CLI spells as its
 * flag (--memory-bytes); a budget read from elsewhere (a manifest) keeps the plain words.
 */
export function validateBudget(budget: Partial<Record<keyof Budget, unknown>>, verb?: string): void {
  for (const field of BUDGET_FIELDS) {
    const value = budget[field.key];
    if (value === undefined) continue;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < field.min ||
      value > field.max ||
      (field.kind === 'integer' && !Number.isInteger(value))
    ) {
      const range = `a ${field.kind === 'integer' ? 'whole number' : 'number'} of ${field.unit} from ${field.min} to ${field.max}`;
      if (verb !== undefined)
        throw new EngineError('BAD_BUDGET', `${inputRef(`budget.${field.key}`)} must be ${range}`, {
          hint: `for example ${inputRef(`budget.${field.key}`, field.key === 'memoryBytes' ? 536870912 : field.min === 1 ? 8 : field.min)}`,
          inputsOf: verb,
        });
      throw new EngineError('BAD_BUDGET', `budget ${field.key} must be ${range}`, { hint: `the CLI flag is ${field.flag}` });
    }
  }
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

import type { Repair } from './plan-repairs.js';

const VERBS: Record<Repair['kind'], string> = {
  'finish-job': 'finish',
  'settle-intent': 'settle',
  'remove-leftover': 'remove',
  'remove-workspace': 'remove',
  'remove-temporary-file': 'remove temporary file',
  'remove-log': 'remove stray log',
  snapshot: 'repair',
};

/** One line for a repair: what it acts on and why, e.g. in doctor's findings. */
export function describeRepair(repair: Repair): string {
  return `${VERBS[repair.kind]} ${repair.target}`;
}

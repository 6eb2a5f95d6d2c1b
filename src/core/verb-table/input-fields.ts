/**
 * Input fields several verbs share, written once so a workspace id or a line
 * count reads and checks the same in every verb (and in every face).
 */
import type * as zod from 'zod';
import { BUDGET_FIELDS } from '../policy/budget-fields.js';
import type { Budget } from '../policy/policy.js';
import type { Zod } from './define-verb.js';

export const workspaceIdField = (z: Zod) => z.string().describe('the workspace id, as returned by create in provenance.workspace_id');

export const jobIdField = (z: Zod) => z.string().describe('the job id, as returned by run in provenance.job_id');

/** logs' line counts: the engine takes 1 to 1,000,000 (core/verbs/logs.ts). */
export const lineCountField = (z: Zod) => z.int().min(1).max(1_000_000);

/** A 1-based line number; 2^31 - 1 is far past any log the output budget keeps. */
export const lineNumberField = (z: Zod) =>
  z
    .int()
    .min(1)
    .max(2 ** 31 - 1);

/** One budget argument per budget field (the table the CLI's create flags come from too), with its real range. */
export const budgetField = (z: Zod) =>
  z
    .strictObject(
      Object.fromEntries(
        BUDGET_FIELDS.map((f) => [
          f.key,
          (f.kind === 'integer' ? z.int() : z.number())
            .min(f.min)
            .max(f.max)
            .optional()
            .describe(f.description.includes(f.unit) ? f.description : `${f.description}, in ${f.unit}`),
        ]),
      ) as Record<keyof Budget, zod.ZodOptional<zod.ZodNumber>>,
    )
    .describe(
      'budget overrides; anything left out keeps the closed default (512 MiB memory, 1 CPU, 128 pids, 1 GiB storage, 300 s wall clock, 10 MiB output, 1 job)',
    );

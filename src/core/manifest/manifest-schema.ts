/**
 * The workspace manifest, `headspace.yml`, schema `headspace.workspace/v1`
 * (#17): what goes in, under which policy, what must come out, which
 * commands set it up. Strict at every depth: an unknown key is refused, as
 * is a wrong type, before anything happens (read-manifest.ts names the key
 * path and the line). The JSON Schema published at
 * docs/headspace.workspace.v1.schema.json is generated from this one
 * (scripts/build-manifest-schema.mjs; a test checks it is current).
 *
 * This module loads zod: only plan and prepare import it, lazily, so the
 * other verbs of the CLI never pay for it.
 */
import { z } from 'zod';
import { BUDGET_FIELDS, parseBudgetValue, type BudgetField } from '../policy/budget-fields.js';
import { PROFILES } from '../policy/profiles.js';

export const MANIFEST_SCHEMA_ID = 'headspace.workspace/v1';

export { MANIFEST_FILE_NAME } from './manifest-name.js';

const relativeHostPath = (what: string) =>
  z.string().min(1).describe(`${what}, relative to the manifest's directory; absolute paths, '..' and symbolic links on the way are refused`);

/** A byte count as the CLI's budget flags take it: digits and a K, M, G or T suffix (powers of 1024), e.g. 512M. */
const BYTES_TEXT = /^\d+(?:\.\d+)?[kKmMgGtT](?:i?[bB])?$/;

/**
 * One budget field. A byte field also takes `512M` as the CLI's flags do (a
 * new user's `memoryBytes: 100M` was refused with the validator's own
 * "expected number, received string").
 */
function budgetField(f: BudgetField): z.ZodType<number | undefined> {
  const plain = (f.kind === 'integer' ? z.int() : z.number()).min(f.min).max(f.max);
  if (f.unit !== 'bytes') return plain.optional().describe(`${f.description} (${f.unit})`);
  const text = z
    .string()
    .regex(BYTES_TEXT, `a whole number of bytes, or one with a K, M, G or T suffix (powers of 1024), e.g. 512M`)
    .transform((raw, ctx) => {
      try {
        return parseBudgetValue(f, raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${raw} is not from ${f.min} to ${f.max} bytes` });
        return z.NEVER;
      }
    });
  return z.union([plain, text]).optional().describe(`${f.description} (${f.unit}; a number, or with a K, M, G or T suffix: 512M)`);
}

const budget = z
  .strictObject(Object.fromEntries(BUDGET_FIELDS.map((f) => [f.key, budgetField(f)])) as Record<string, z.ZodType<number | undefined>>)
  .describe('budgets; each one left out takes the closed default');

export const ManifestSchema = z
  .strictObject({
    schema: z.literal(MANIFEST_SCHEMA_ID).describe(`the manifest's schema: ${MANIFEST_SCHEMA_ID}`),
    id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'an id is 1–64 of A-Z a-z 0-9 . _ -')
      .describe('the workspace id prepare creates (1–64 of A-Z a-z 0-9 . _ -)'),
    purpose: z.string().min(1).optional().describe('why the workspace exists'),
    owner: z.string().min(1).optional().describe('who owns it'),
    ttl: z.number().positive().optional().describe('seconds from prepare until the workspace expires (gc then removes it)'),
    provider: z.string().min(1).optional().describe('native, docker or fake; default: the default provider'),
    profile: z.enum(PROFILES).optional().describe('runtime profile; default host'),
    policy: z.strictObject({ budget: budget.optional() }).optional().describe('the workspace policy; network stays disabled'),
    inputs: z
      .array(
        z.strictObject({
          path: relativeHostPath('a host file or directory to copy in'),
          to: z.string().min(1).optional().describe('where it lands, relative to the workspace root; default: path'),
        }),
      )
      .optional()
      .describe('host files and directories copied in at prepare, recorded with size and sha256'),
    repositories: z
      .array(
        z.strictObject({
          source: z
            .string()
            .min(1)
            .describe(
              "a local git repository (bare or not) relative to the manifest's directory, or a remote: https://, ssh:// or user@host:path (http:// and git:// only to loopback); a URL's password is never recorded",
            ),
          ref: z.string().min(1).describe('the branch, tag or commit to check out (detached); a remote commit is given in full'),
          to: z.string().min(1).describe('where the clone lands, relative to the workspace root'),
        }),
      )
      .optional()
      .describe('git repositories cloned independently (no hardlinks, no alternates) at a ref and copied in at prepare; the commit is recorded'),
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'))
      .optional()
      .describe("names of environment variables the setup commands get, their values from the caller's environment (never recorded)"),
    envFiles: z
      .array(relativeHostPath('a strict NAME=VALUE file'))
      .optional()
      .describe('env files whose variables the setup commands get (values never recorded)'),
    artifacts: z
      .array(
        z.strictObject({
          name: z.string().min(1).describe('a file the work will produce, relative to the workspace root'),
          purpose: z.string().min(1).describe('why it matters'),
        }),
      )
      .optional()
      .describe('artifacts declared at prepare: only declared artifacts can be exported'),
    setup: z
      .array(z.strictObject({ argv: z.array(z.string()).min(1).describe('the command and its arguments, no shell') }))
      .optional()
      .describe('commands run once, in order, at prepare; the first that fails ends prepare'),
    verify: z
      .array(
        z.union([
          z.strictObject({
            command: z
              .union([z.string().min(1), z.array(z.string()).min(1)])
              .describe('a check command: an argv, or one line split into words as run splits a verify command (no shell); it must exit 0'),
          }),
          z.strictObject({
            file: z.string().min(1).describe('a workspace file (relative to the workspace root) that must exist as a regular file'),
            sha256: z.string().optional().describe('its sha256 (64 hex digits, sha256: prefix optional)'),
          }),
          z.strictObject({
            output: z.string().min(1).describe("an RE2 pattern that must match the last setup command's kept output (needs a setup command)"),
          }),
        ]),
      )
      .optional()
      .describe(
        "the workspace's verification contract (as run's verify, expectFiles and expectOutput), judged at prepare as the checks of the last setup command's job (a no-op job's when there is none); re-judged by a later prepare when only this section changed or the recorded verdict did not pass",
      ),
  })
  .describe(`a headspace workspace manifest (${MANIFEST_SCHEMA_ID})`);

export type Manifest = z.output<typeof ManifestSchema>;

/** The JSON Schema of the manifest, as published in docs/. */
export function manifestJsonSchema(): Record<string, unknown> {
  return {
    title: MANIFEST_SCHEMA_ID,
    ...z.toJSONSchema(ManifestSchema, { io: 'input', target: 'draft-2020-12' }),
  };
}

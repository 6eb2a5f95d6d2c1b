/**
 * A page of workspaces' policy labels and storage (#21): what the dashboard's
 * list shows beside `ls`'s rows. `ls` reads the store alone (fast with
 * thousands); this reads only the ids asked for, so a page of the list costs
 * a page, never the whole store. The labels are the ones inspect shows (one
 * rule: policySummary); storage is the provider's measure, asked only when
 * `storage` is set, because on some providers it walks a workspace's files.
 */
import type { EngineContext } from '../context.js';
import { settleEach } from '../settle-each.js';
import { EngineError } from '../errors.js';
import type { ProviderCapabilities } from '../provider.js';
import { policySummary } from '../result/package-parts.js';
import type { LimitSummary } from '../result/result-package.js';

/** Ids one call may ask about: a page of the dashboard's list at most. */
export const MAX_FACT_IDS = 500;
/** Storage measures running at once: a page of 100 on a walking provider must not start 100 walks together. */
const STORAGE_AT_ONCE = 8;

export interface WorkspaceFactsInput {
  ids: string[];
  /** Also measure each workspace's storage through its provider (slower: asked after the rows are shown). */
  storage?: boolean;
}

export interface WorkspaceFacts {
  id: string;
  /** Every limit with its label (enforced, measured, simulated) and what enforces it: inspect's policy_summary. */
  policy: LimitSummary[];
  /** Secrets at egress need a network allow-list (its proxy puts the value in the requests): whether this workspace can take them. */
  secrets_at_egress: boolean;
  /** With `storage`: bytes the workspace's files use as its provider measures them; null when it could not say (or destroyed). */
  storage_bytes?: number | null;
}

export async function workspaceFacts(ctx: EngineContext, input: WorkspaceFactsInput): Promise<WorkspaceFacts[]> {
  if (!Array.isArray(input.ids) || input.ids.some((id) => typeof id !== 'string') || input.ids.length > MAX_FACT_IDS)
    throw new EngineError('BAD_ARGUMENT', `ids is a list of at most ${MAX_FACT_IDS} workspace ids`, { hint: 'ask a page of the list at a time' });
  const store = ctx.store();
  const caps = new Map<string, Promise<ProviderCapabilities | null>>();
  const capsOf = (name: string) => {
    let found = caps.get(name);
    if (!found) {
      found = ctx.provider(name).then(
        (p) => p.capabilities().catch(() => null),
        () => null,
      );
      caps.set(name, found);
    }
    return found;
  };
  const records = input.ids.flatMap((id) => store.getWorkspace(id) ?? []);
  const facts = await Promise.all(
    records.map(async (ws): Promise<WorkspaceFacts> => ({
      id: ws.id,
      policy: policySummary(ws.policy, await capsOf(ws.provider)),
      secrets_at_egress: ws.policy.network === 'allowlist',
    })),
  );
  if (input.storage !== true) return facts;
  const measured = await settleEach(records, STORAGE_AT_ONCE, async (ws) =>
    ws.state === 'destroyed' ? null : ((await (await ctx.provider(ws.provider)).inspect(ws.id)).storageBytes ?? null),
  );
  // A provider that could not say (or could not be made) measures nothing: null, as for a destroyed workspace.
  measured.forEach((answer, i) => (facts[i]!.storage_bytes = answer.status === 'fulfilled' ? answer.value : null));
  return facts;
}

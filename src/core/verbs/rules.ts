/**
 * The rules verb (#16): list, add, remove or clear a workspace's
 * supervision rules. Every change is journalled as a rule decision; the
 * result lists the rules after the change and the latest decisions.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { parseRule } from '../rules/rule-text.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { ResultPackage } from '../result/result-package.js';
import { requireLiveWorkspace } from './workspace-guards.js';

export interface RulesInput {
  workspaceId: string;
  action?: 'list' | 'add' | 'remove' | 'clear';
  rule?: string;
}

export async function manageRules(ctx: EngineContext, input: RulesInput): Promise<ResultPackage> {
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const store = ctx.store();
  const action = input.action ?? 'list';
  if (!['list', 'add', 'remove', 'clear'].includes(action))
    throw new EngineError('BAD_ARGUMENT', `rules takes list, add, remove or clear, not '${String(action).slice(0, 40)}'`, {
      hint: 'list shows the rules; add and remove take one; clear lets a stopped workspace run again',
    });
  const needsRule = action === 'add' || action === 'remove';
  if (needsRule && input.rule === undefined) throw new EngineError('BAD_ARGUMENT', `rules ${action} needs a rule`, { hint: 'for example stuck:3:block' });
  if (!needsRule && input.rule !== undefined)
    throw new EngineError('BAD_ARGUMENT', `rules ${action} takes no rule`, { hint: 'a rule goes with add or remove' });
  const now = ctx.clock.now();
  const journal = (rule: string, decision: string, detail: string) =>
    store.recordRuleDecision({ workspaceId: ws.id, jobId: null, rule, decision, detail, at: now, traceId: ctx.traceId });
  let summary: string;
  switch (action) {
    case 'add': {
      const rule = parseRule(input.rule!);
      const added = store.atomically(() => {
        const fresh = store.addRule(ws.id, rule.text, now);
        if (fresh) journal(rule.text, 'added', 'added by the rules verb');
        return fresh;
      });
      summary = added ? `workspace ${ws.id} now carries rule ${rule.text}` : `workspace ${ws.id} already carries rule ${rule.text}`;
      break;
    }
    case 'remove': {
      const rule = parseRule(input.rule!);
      const removed = store.atomically(() => {
        const gone = store.removeRule(ws.id, rule.text);
        if (gone) journal(rule.text, 'removed', 'removed by the rules verb');
        return gone;
      });
      if (!removed)
        throw new EngineError('BAD_ARGUMENT', `workspace ${ws.id} has no rule ${rule.text}`, {
          hint: 'list the rules first',
          action: nextAction('rules', { workspaceId: ws.id }),
        });
      summary = `workspace ${ws.id} no longer carries rule ${rule.text}`;
      break;
    }
    case 'clear': {
      const tripped = store.listRules(ws.id).filter((r) => r.trippedAt !== null);
      store.atomically(() => {
        store.clearRules(ws.id);
        journal('*', 'cleared', tripped.length === 0 ? 'counting restarted' : `untripped ${tripped.map((r) => r.rule).join(', ')}; counting restarted`);
      });
      summary =
        tripped.length === 0
          ? `workspace ${ws.id}'s rules count afresh from now`
          : `workspace ${ws.id} takes jobs again: ${tripped.map((r) => r.rule).join(', ')} cleared, and counting restarts`;
      break;
    }
    case 'list':
      summary = `workspace ${ws.id} carries ${store.listRules(ws.id).length || 'no'} rule${store.listRules(ws.id).length === 1 ? '' : 's'}`;
  }
  const rules = store.listRules(ws.id);
  const findings = rules.map((r) =>
    r.trippedAt === null
      ? `rule ${r.rule}`
      : `rule ${r.rule}: TRIPPED at ${new Date(r.trippedAt).toISOString()} by job ${r.trippedByJob ?? '?'}; jobs are refused until clear`,
  );
  const decisions = store
    .ruleDecisions(ws.id, 10)
    .map((d) => `${new Date(d.at).toISOString()} ${d.decision} ${d.rule}${d.jobId ? ` (job ${d.jobId})` : ''}: ${d.detail}`);
  return buildResult({
    outcome_summary: summary,
    status: 'success',
    key_findings: findings.length === 0 ? ['no rules'] : findings,
    evidence:
      decisions.length === 0
        ? []
        : [{ label: 'the latest rule decisions (journal)', kind: 'fact', source: ws.id, truncated: false, excerpt: decisions.join('\n') }],
    provenance: provenanceFor(ctx, 'rules', { workspace: ws }),
  });
}

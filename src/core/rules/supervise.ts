/**
 * Supervision rules at work (#16): checked before each job (deny-command,
 * and any blocking rule that has tripped) and after each job's terminal
 * record (stuck, error-rate). Every decision is journalled in the store
 * (rule_decisions) with the engine call's trace id, and shown: a refusal is
 * the error itself (POLICY_DENIED, exit 3, naming the rule), a rule that
 * fires is an attention item of the job's result.
 *
 * A refusal happens before anything is recorded or started: no job row, no
 * intent, no log, no provider call — so no process and no cgroup.
 *
 * What counts as a failed job for stuck and error-rate: any terminal
 * status but success and cancelled (a cancel is a decision, not a
 * failure). "The same way": the same status, exit code and signal. "The
 * same command": the same argv and working directory. Only jobs started
 * since the rule was added or last cleared count.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem } from '../result/result-package.js';
import type { JobRecord, RuleRow, WorkspaceRecord } from '../store/sqlite-store.js';
import { denyMatches, parseRule, runsShellScript } from './rule-text.js';

/**
 * Before a job: refuses (POLICY_DENIED) while a blocking rule is tripped or
 * when a deny-command rule matches the argv; otherwise returns the warnings
 * the job's result must carry (a shell script no deny rule could inspect).
 */
/**
 * `checks` are the run's verify commands (#16): they run in the same
 * workspace under the same policy as the job, so a deny rule holds for them
 * too (a rule on rm was bypassed by --verify 'rm …', found by a red team).
 * `rules`: the workspace's rules as the caller has just read them (run reads
 * them with its other checks, in one read transaction, #20).
 */
export function checkRulesBeforeJob(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  argv: readonly string[],
  checks: readonly (readonly string[])[] = [],
  rules: readonly RuleRow[] = ctx.store().listRules(ws.id),
): string[] {
  const store = ctx.store();
  if (rules.length === 0) return [];
  const journal = (rule: string, decision: string, detail: string) =>
    store.recordRuleDecision({ workspaceId: ws.id, jobId: null, rule, decision, detail, at: ctx.clock.now(), traceId: ctx.traceId });
  const tripped = rules.find((r) => r.trippedAt !== null);
  if (tripped) {
    const detail = `rule ${tripped.rule} tripped at ${new Date(tripped.trippedAt!).toISOString()} after job ${tripped.trippedByJob ?? '?'}; jobs are refused until the rules are cleared`;
    journal(tripped.rule, 'blocked', detail);
    throw new EngineError('POLICY_DENIED', `workspace ${ws.id} refuses jobs: ${detail}`, {
      hint: `look at the failing jobs (inspect ${ws.id}), then clear the rules to resume`,
      action: nextAction('rules', { workspaceId: ws.id, action: 'clear' }),
    });
  }
  const denyRules = rules.map((r) => parseRule(r.rule)).filter((r) => r.kind === 'deny-command');
  const commands = [{ what: 'the command', argv }, ...checks.map((check, i) => ({ what: `verify command ${i + 1}`, argv: check }))];
  for (const rule of denyRules) {
    const matched = commands.find((c) => denyMatches(rule.words, c.argv));
    if (matched) {
      const detail = `${matched.what} matches rule ${rule.text}`;
      journal(rule.text, 'denied', detail);
      throw new EngineError('POLICY_DENIED', `workspace ${ws.id} refused the job before anything ran: ${detail}`, {
        hint: 'run another command, or remove the rule if it is wrong',
        action: nextAction('rules', { workspaceId: ws.id, action: 'remove', rule: rule.text }),
      });
    }
  }
  return denyRules.length === 0
    ? []
    : commands
        .filter((c) => runsShellScript(c.argv))
        .map(
          (c) =>
            `this workspace has deny-command rules, but ${c.what} runs a shell script (${c.argv[0]} -c …): rules match the argv only, so the script itself was not inspected`,
        );
}

/**
 * After a job's terminal record: judges stuck and error-rate, journals what fired, trips blocking rules; the attention items for the result.
 * `rules`: the workspace's rules as read in the transaction of the terminal record (execute-job.ts, #20).
 */
export function judgeRulesAfterJob(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  job: JobRecord,
  rules: readonly RuleRow[] = ctx.store().listRules(ws.id),
): AttentionItem[] {
  const store = ctx.store();
  const items: AttentionItem[] = [];
  for (const row of rules) {
    const rule = parseRule(row.rule);
    if (rule.kind === 'deny-command' || row.trippedAt !== null) continue;
    const detail =
      rule.kind === 'stuck'
        ? stuckDetail(store.latestFinishedJobs(ws.id, row.countsAfterJob, rule.count), rule.count)
        : errorRateDetail(store.latestFinishedJobs(ws.id, row.countsAfterJob, rule.window), rule.failures, rule.window);
    if (detail === null) continue;
    const now = ctx.clock.now();
    store.atomically(() => {
      store.recordRuleDecision({
        workspaceId: ws.id,
        jobId: job.id,
        rule: rule.text,
        decision: rule.block ? 'tripped' : 'fired',
        detail,
        at: now,
        traceId: ctx.traceId,
      });
      if (rule.block) store.tripRule(ws.id, rule.text, job.id, now);
    });
    items.push(
      attentionItem(
        'rule',
        rule.block ? `rule ${rule.text} fired: ${detail}; the workspace now refuses jobs until its rules are cleared` : `rule ${rule.text} fired: ${detail}`,
        { workspace_id: ws.id, job_id: job.id, ...(rule.block ? { action: nextAction('rules', { workspaceId: ws.id, action: 'clear' }) } : {}) },
      ),
    );
  }
  return items;
}

function failed(job: JobRecord): boolean {
  return job.status !== 'success' && job.status !== 'cancelled' && job.status !== null && job.status !== 'running';
}

function stuckDetail(latest: JobRecord[], count: number): string | null {
  if (latest.length < count || !latest.every(failed)) return null;
  const key = (j: JobRecord) => JSON.stringify([j.argv, j.cwd, j.status, j.exitCode, j.signal]);
  if (!latest.every((j) => key(j) === key(latest[0]!))) return null;
  const way = `${latest[0]!.status}${latest[0]!.exitCode === null ? '' : ` (exit ${latest[0]!.exitCode})`}`;
  return `the same command failed the same way, ${way}, ${count} times in a row (jobs ${latest
    .map((j) => j.id)
    .reverse()
    .join(', ')})`;
}

function errorRateDetail(latest: JobRecord[], failures: number, window: number): string | null {
  const n = latest.filter(failed).length;
  if (n < failures) return null;
  return `${n} of the last ${latest.length} jobs failed (the rule allows fewer than ${failures} of ${window})`;
}

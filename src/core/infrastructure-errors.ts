/**
 * Infrastructure failures (exit 7) as a caller sees them (#12 item 4): an
 * outage of the machinery, never a refusal of the policy, worded without
 * host detail and always with a remediation.
 *
 * A mount, mkfs or bwrap failure quotes the tool's stderr, which names the
 * runtime's host paths and loop devices; a result or error carries them to
 * an agent, which can do nothing with them and should not learn the host's
 * layout from them. The cause keeps the original for debugging.
 */
import { nextAction, type NextAction } from './next-action.js';
import { EngineError } from './errors.js';
import type { ProbeCheck } from './provider.js';

/**
 * An absolute path after a separator; `/workspace…` is the job's own view,
 * not the host's, and `//…` is a URL's authority (`tcp://127.0.0.1:2375`,
 * `unix:///var/run/docker.sock`: an address the user configured, which a new
 * user found scrubbed to `tcp:<host path>`).
 */
const HOST_PATH = /(^|[\s'"`(=:,])\/(?!\/)(?!workspace(?:[/\s'"`),;:]|$))[^\s'"`),;]+/g;
const LOOP_DEVICE = /\bloop\d+\b/g;

export function withoutHostDetail(text: string): string {
  return text.replace(HOST_PATH, '$1<host path>').replace(LOOP_DEVICE, 'a loop device');
}

/** Anything thrown, as the caller gets it: exit-7 errors scrubbed and given a remediation; others unchanged. */
export function forTheCaller(error: unknown, provider?: string): unknown {
  return error instanceof EngineError ? callerFacing(error, provider) : error;
}

export function callerFacing(error: EngineError, provider?: string): EngineError {
  if (error.category !== 'infrastructure_failure') return error;
  const message = withoutHostDetail(error.message);
  if (message === error.message && error.hint !== undefined) return error;
  if (error.hint !== undefined)
    return new EngineError(error.code, message, { hint: error.hint, ...(error.action === undefined ? {} : { action: error.action }), cause: error });
  return new EngineError(error.code, message, { hint: 'doctor names what is broken and how to fix it', action: doctorFor(provider), cause: error });
}

/**
 * Why a provider that is not ready cannot take a workspace, with the right
 * exit code: a failed check that backs a limit (a cgroup controller for
 * memory) means the host cannot back the policy (policy_denied, exit 3); any
 * other failed check is missing or broken machinery (bwrap, the exec shim,
 * user namespaces: infrastructure_failure, exit 7). Checks with the same
 * finding are named together, so each reason is said once.
 */
export function notReadyError(provider: string, checks: readonly ProbeCheck[]): EngineError {
  const blocking = checks.filter((c) => !c.ok && c.advisory !== true);
  const machinery = blocking.filter((c) => (c.limits ?? []).length === 0);
  if (blocking.length > 0 && machinery.length === 0) {
    const limits = [...new Set(blocking.flatMap((c) => c.limits ?? []))];
    const remedy = remedies(blocking);
    const step = nextStep(remedy, 'doctor names what is missing', provider);
    return new EngineError('POLICY_DENIED', `the ${provider} provider cannot enforce ${limits.join(', ')} on this host: ${findings(blocking)}`, {
      hint: step.hint,
      ...step.action,
    });
  }
  const remedy = remedies(machinery);
  const step = nextStep(remedy, 'doctor names what is broken and how to fix it', provider);
  return new EngineError(
    'PROVIDER_FAILURE',
    `the ${provider} provider cannot run here: ${machinery.length > 0 ? findings(machinery) : 'its probe says it is not ready'}`,
    { hint: step.hint, ...step.action },
  );
}

/**
 * The remedy the checks name, with the fake provider to try meanwhile as the
 * action; without a remedy, doctor is the action (the call goes last, after
 * the words it belongs to).
 */
function nextStep(remedy: string | undefined, withoutRemedy: string, provider: string): { hint: string; action: { action?: NextAction } } {
  if (remedy === undefined) return { hint: `${provider === 'fake' ? '' : `${TRY_FAKE}; otherwise `}${withoutRemedy}`, action: { action: doctorFor(provider) } };
  return provider === 'fake'
    ? { hint: remedy, action: {} }
    : { hint: `${remedy}; ${TRY_FAKE}`, action: { action: nextAction('create', { provider: 'fake' }) } };
}

/** Doctor's checks, of one provider when it is known. */
function doctorFor(provider: string | undefined): NextAction {
  return nextAction('doctor', provider === undefined ? {} : { provider });
}

/** Each distinct remedy once (memory, pids and cpu share one when one cgroup driver is missing, #12 item 12). */
function remedies(checks: readonly ProbeCheck[]): string | undefined {
  const distinct = [...new Set(checks.map((c) => c.remedy).filter((r): r is string => r !== undefined && r !== ''))];
  return distinct.length > 0 ? distinct.join('; ') : undefined;
}

/** How to try headspace meanwhile: the fake provider runs anywhere (it isolates nothing). */
const TRY_FAKE = 'to try headspace without isolation meanwhile, choose the fake provider (or set HEADSPACE_PROVIDER=fake)';

function findings(checks: readonly ProbeCheck[]): string {
  const byDetail = new Map<string, string[]>();
  for (const c of checks) {
    const detail = withoutHostDetail(c.detail);
    byDetail.set(detail, [...(byDetail.get(detail) ?? []), c.name]);
  }
  return [...byDetail].map(([detail, names]) => `${names.join(', ')}: ${detail}`).join('; ');
}

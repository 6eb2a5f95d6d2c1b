/** Reading events out of result packages, for the events tests (#15). */
import type { ResultPackage } from '../../src/core/result/result-package.js';

export interface EventFinding {
  id: string;
  seq: number;
  name: string;
  job_id: string;
  workspace_id: string;
  status: string;
  exit_code?: number;
  state?: string;
  deliveries?: number;
  outcome?: string;
}

/** The event findings of a package (claim, ack, requeue). */
export function eventsOf(pkg: ResultPackage): EventFinding[] {
  return pkg.key_findings.filter((f): f is EventFinding & { kind: string } => typeof f !== 'string' && f.kind === 'event') as EventFinding[];
}

/** The subscription id a subscribe returned. */
export function subscriptionIdOf(pkg: ResultPackage): string {
  const found = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'subscription');
  if (!found || typeof found === 'string') throw new Error(`no subscription in: ${pkg.outcome_summary}`);
  return String(found.id);
}

import { EngineError } from './errors.js';
import type { ProbeResult } from './provider.js';

/**
 * Why a provider that is not ready cannot run here, said once (#12 item 12).
 * Checks that fail for one reason (memory, pids and cpu all lack a cgroup
 * driver) share one detail and one remedy: they are named together, the
 * detail and the remedy once, instead of three times each. The hint adds
 * the way to try headspace meanwhile: the fake provider, which runs anywhere.
 */
export function providerNotReady(providerName: string, probe: ProbeResult): EngineError {
  const failed = probe.checks.filter((c) => !c.ok && c.advisory !== true);
  const byDetail = new Map<string, string[]>();
  for (const check of failed) byDetail.set(check.detail, [...(byDetail.get(check.detail) ?? []), check.name]);
  const reasons = [...byDetail].map(([detail, names]) => `${names.join(', ')}: ${detail}`);
  const remedies = [...new Set(failed.map((c) => c.remedy).filter((r): r is string => r !== undefined))];
  const fix = remedies.length > 0 ? remedies.join('; ') : `run \`headspace doctor --provider ${providerName}\` for the details`;
  const tryFake = providerName === 'fake' ? '' : '; to try headspace without isolation meanwhile, use the fake provider (--provider fake, or HEADSPACE_PROVIDER=fake)';
  return new EngineError('POLICY_DENIED', `the ${providerName} provider cannot isolate and budget jobs here: ${reasons.join('; ') || 'its probe failed'}`, { hint: `${fix}${tryFake}` });
}

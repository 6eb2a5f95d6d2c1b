import type { ProviderCapabilities } from '../../../../src/core/provider.js';
import { LIMIT_NAMES, type LimitName } from '../../../../src/core/policy/policy.js';

/** Declared capabilities of a provider that applies every limit but those named. */
export function capsWithout(cannot: LimitName[], more: Partial<ProviderCapabilities> = {}): ProviderCapabilities {
  const enforces = Object.fromEntries(LIMIT_NAMES.map((name) => [name, !cannot.includes(name)])) as Record<LimitName, boolean>;
  return { provider: 'test', enforces, reasons: {}, networkAccess: false, hostPaths: false, layers: ['namespaces'], durable: true, ...more };
}

/**
 * `create`'s network argument, as every face gives it: `disabled`,
 * `enabled`, or one or more `allow=PATTERN[,PATTERN…]` (the CLI's
 * `--network` is repeatable). Becomes the policy's network mode and
 * normalised allow-list.
 */
import { EngineError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import { parseAllowList } from './allow-list.js';

export type NetworkInput = string | string[];

export function networkPolicy(input: NetworkInput | undefined): Pick<Policy, 'network' | 'networkAllow'> {
  if (input === undefined) return { network: 'disabled' };
  const specs = Array.isArray(input) ? input : [input];
  if (specs.length === 0 || specs.some((s) => typeof s !== 'string')) throw badNetwork(String(specs[0]));
  if (specs.length === 1 && (specs[0] === 'disabled' || specs[0] === 'enabled')) return { network: specs[0] };
  if (specs.every((s) => s.startsWith('allow='))) return { network: 'allowlist', networkAllow: parseAllowList(specs) };
  // `disabled` or `enabled` beside an allow-list is a contradiction, not an unknown word (it once read "takes disabled …, not 'disabled'").
  if (specs.length > 1 && specs.some((s) => s === 'disabled' || s === 'enabled'))
    throw new EngineError(
      'BAD_ARGUMENT',
      `network is one of disabled, enabled or allow-lists, not several: got ${specs.map((s) => `'${s.slice(0, 40)}'`).join(', ')}`,
      {
        hint: 'give either disabled (the default) or one or more allow=HOST[,HOST…]',
      },
    );
  throw badNetwork(specs.find((s) => !s.startsWith('allow=')) ?? specs.join(' '));
}

function badNetwork(text: string): EngineError {
  return new EngineError('BAD_ARGUMENT', `network takes disabled, enabled or allow=HOST[,HOST…], not '${text.slice(0, 40)}'`, {
    hint: 'omit it for the closed default (disabled), or list the hosts a job may reach: allow=registry.npmjs.org',
  });
}

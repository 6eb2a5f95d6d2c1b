import { EngineError, inputRef } from '../errors.js';
import { nextAction } from '../next-action.js';

/**
 * The refusal of `--network enabled`, said once (#12 item 5). It used to go
 * through the generic "cannot enforce" refusal, which named network three
 * times and sent the caller to `doctor`, where nothing would have helped:
 * no provider gives a workspace open network access (sharing the host's
 * network would expose its loopback services), on any host.
 */
export function openNetworkRefused(): EngineError {
  return new EngineError(
    'POLICY_DENIED',
    `open network access is refused: no provider offers a workspace the whole network, because sharing the host network would expose its loopback services; list the hosts a job needs instead (${inputRef('network', 'allow=HOST[,HOST…]')})`,
    {
      hint: `create it with ${inputRef('network', 'allow=HOST')} (e.g. allow=registry.npmjs.org), or with ${inputRef('network', 'disabled')} and bring what the job needs in first, with put or a run's inputs`,
      action: nextAction('create', { network: 'allow=registry.npmjs.org' }),
      // The CLI spells these --network allow=HOST, the library and MCP network: "allow=HOST" (a new user read "network allow=HOST" as no flag at all).
      inputsOf: 'create',
    },
  );
}

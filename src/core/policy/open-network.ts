import { EngineError } from '../errors.js';
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
    'open network access is refused: no provider offers a workspace the whole network, because sharing the host network would expose its loopback services; list the hosts a job needs instead (network allow=HOST[,HOST…])',
    {
      hint: "create it with network allow=HOST (e.g. allow=registry.npmjs.org), or with network disabled and bring what the job needs in first, with put or a run's inputs",
      action: nextAction('create', { network: 'allow=registry.npmjs.org' }),
    },
  );
}

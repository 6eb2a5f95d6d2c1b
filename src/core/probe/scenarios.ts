/**
 * The containment scenarios, as data, in the order `probe --all` runs them:
 * cheap boundary checks first, the budget attacks (bomb, hog, /tmp) last so
 * a slow one cannot delay the rest.
 */
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import type { Scenario } from './probe-types.js';
import { fillTmp, readHostFile, symlinkRead, writeOutside } from './scenarios-filesystem.js';
import { containerSockets, externalNetwork, hostEnv, loopback, privilege, procHostPaths } from './scenarios-isolation.js';
import { deepCheckpoint, deepTree, middleLink, sparseCheckpoint, sparseExport } from './scenarios-host-side.js';
import { forkBomb, memoryHog, processOutlivesJob, stopResister } from './scenarios-budgets.js';
import { socketFamilies, syscallAllowList } from './scenarios-kernel.js';
import { perUserLimits } from './scenarios-identity.js';
import { hostPathThroughLink, inheritedFds, landlockLayer, procMasks } from './scenarios-descriptors.js';
import { hostileNames, invisibleOutput } from './scenarios-output.js';
import { socketMemory } from './scenarios-memory.js';
import { budgetPastHost } from './scenarios-capacity.js';
import { inheritedLimits, ptyPool } from './scenarios-terminals.js';
import { egressCaKey, egressSecretPlaceholder } from './scenarios-egress-secrets.js';
import { egressSecretFronting } from './scenarios-egress-fronting.js';
import { egressRedactorOracle } from './scenarios-egress-redactor-oracle.js';
import { egressSecretReflection } from './scenarios-egress-reflection.js';
import { egressDirectConnect, egressDisallowedDomain, egressDnsExfiltration, egressIpLiteral, egressMalformedHost, egressUdp } from './scenarios-egress.js';
import { snapshotData } from './scenarios-snapshots.js';

// Method syntax in Scenario makes `judge` bivariant, so each typed scenario fits the erased table.
export const SCENARIOS: readonly Scenario[] = [
  writeOutside,
  readHostFile,
  hostEnv,
  loopback,
  externalNetwork,
  containerSockets,
  procHostPaths,
  symlinkRead,
  privilege,
  processOutlivesJob,
  sparseExport,
  sparseCheckpoint,
  deepCheckpoint,
  deepTree,
  middleLink,
  socketFamilies,
  syscallAllowList,
  perUserLimits,
  inheritedFds,
  procMasks,
  hostPathThroughLink,
  landlockLayer,
  hostileNames,
  invisibleOutput,
  socketMemory,
  budgetPastHost,
  inheritedLimits,
  ptyPool,
  egressDisallowedDomain,
  egressIpLiteral,
  egressDnsExfiltration,
  egressUdp,
  egressDirectConnect,
  egressMalformedHost,
  egressSecretPlaceholder,
  egressCaKey,
  egressSecretFronting,
  egressSecretReflection,
  egressRedactorOracle,
  snapshotData,
  forkBomb,
  memoryHog,
  stopResister,
  fillTmp,
];

export const SCENARIO_IDS: readonly string[] = SCENARIOS.map((s) => s.id);

/**
 * The scenarios one call asks for; an unknown id is a user error that lists the known ones. Its refusals name
 * probe's inputs as marks (inputRef), so the CLI says --all where the library says all.
 */
export function selectScenarios(request: { scenario?: string | undefined; all?: boolean | undefined }): Scenario[] {
  if (request.scenario !== undefined && request.all === true) {
    throw new EngineError('BAD_ARGUMENT', `give either one ${inputRef('scenario')} or ${inputRef('all')}, not both`, {
      hint: `${inputRef('all')}, or one of: ${SCENARIO_IDS.join(', ')}`,
      action: nextAction('probe', { all: true }),
      inputsOf: 'probe',
    });
  }
  if (request.all === true) return [...SCENARIOS];
  if (request.scenario === undefined || request.scenario === '') {
    throw new EngineError('BAD_ARGUMENT', `probe needs a ${inputRef('scenario')} id or ${inputRef('all')}`, {
      hint: `${inputRef('all')}, or one of: ${SCENARIO_IDS.join(', ')} (${inputRef('list')} describes them)`,
      action: nextAction('probe', { all: true }),
      inputsOf: 'probe',
    });
  }
  const found = SCENARIOS.find((s) => s.id === request.scenario);
  if (!found) {
    const shown = request.scenario.length > 40 ? `${request.scenario.slice(0, 40)}…` : request.scenario;
    // `probe all` is what an old hint said; the word is an input of its own, not a scenario, so say which.
    const meant = OTHER_INPUTS[request.scenario];
    throw new EngineError('BAD_ARGUMENT', `unknown probe scenario '${shown}'`, {
      hint: meant === undefined ? `choose one of: ${SCENARIO_IDS.join(', ')}` : `${inputRef(request.scenario)} asks for ${meant}; it is not a scenario id`,
      ...(meant === undefined ? {} : { action: nextAction('probe', { [request.scenario]: true }), inputsOf: 'probe' }),
    });
  }
  return [found];
}

/** probe's other inputs, named where a scenario id is expected. */
const OTHER_INPUTS: Readonly<Record<string, string>> = { all: 'every scenario', list: 'the list of scenarios', last: 'the last recorded report' };

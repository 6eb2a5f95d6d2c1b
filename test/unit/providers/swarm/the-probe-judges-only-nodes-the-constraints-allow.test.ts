/**
 * The swarm probe checks only the nodes Swarm may place this provider's
 * tasks on: a node its constraints exclude takes no workspace, so a node
 * killed or half set up there cannot make creates refuse. Constraints are
 * read as Swarm reads them (== needs the value, != holds without it, case
 * ignored), and an attribute this does not know keeps the node checked
 * (fail closed).
 */
import { describe, expect, it } from 'vitest';
import { nodeMeetsConstraints, type SwarmNodeFacts } from '../../../../src/providers/swarm/node-constraints.js';

const fixed: SwarmNodeFacts = {
  ID: 'n1id',
  Description: { Hostname: 'hs-n1', Platform: { OS: 'linux', Architecture: 'x86_64' } },
  Spec: { Role: 'manager', Labels: { 'dev.headspace.pool': 'fixed' } },
};
const disposable: SwarmNodeFacts = { ID: 'n5id', Description: { Hostname: 'hs-n5' }, Spec: { Role: 'worker', Labels: { 'dev.headspace.test-node': 'n5' } } };

describe('swarm placement constraints, as the probe reads them', () => {
  it('lets every node through when there is none', () => {
    expect(nodeMeetsConstraints(disposable, [])).toBe(true);
  });

  it('needs a label that == names, and lets a node without it through !=', () => {
    expect(nodeMeetsConstraints(fixed, ['node.labels.dev.headspace.pool==fixed'])).toBe(true);
    expect(nodeMeetsConstraints(disposable, ['node.labels.dev.headspace.pool==fixed'])).toBe(false);
    expect(nodeMeetsConstraints(disposable, ['node.labels.dev.headspace.pool!=fixed'])).toBe(true);
    expect(nodeMeetsConstraints(fixed, ['node.labels.dev.headspace.pool != fixed'])).toBe(false);
  });

  it('compares values ignoring case, so it never judges fewer nodes than Swarm places on', () => {
    expect(nodeMeetsConstraints(fixed, ['node.labels.dev.headspace.pool==FIXED'])).toBe(true);
    expect(nodeMeetsConstraints(fixed, ['node.hostname!=HS-N1'])).toBe(false);
  });

  it('reads role, hostname, id and platform, and needs every constraint', () => {
    expect(nodeMeetsConstraints(fixed, ['node.role==manager', 'node.hostname==hs-n1', 'node.id==n1id', 'node.platform.os==linux'])).toBe(true);
    expect(nodeMeetsConstraints(fixed, ['node.role==manager', 'node.hostname!=hs-n1'])).toBe(false);
    expect(nodeMeetsConstraints(disposable, ['node.role==worker', 'node.platform.arch==x86_64'])).toBe(false);
  });

  it('keeps a node checked when it cannot tell (an engine label, a malformed constraint)', () => {
    expect(nodeMeetsConstraints(disposable, ['engine.labels.zone==a'])).toBe(true);
    expect(nodeMeetsConstraints(disposable, ['nonsense'])).toBe(true);
  });
});

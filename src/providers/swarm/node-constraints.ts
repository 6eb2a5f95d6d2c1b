/**
 * Whether Swarm may place a task of this provider on a node, judged from the
 * provider's placement constraints (HEADSPACE_SWARM_CONSTRAINTS, Swarm's
 * syntax: `ATTRIBUTE==VALUE` or `ATTRIBUTE!=VALUE`). The probe checks only
 * such nodes: one the constraints exclude takes no workspace, so its engine,
 * image or labels cannot stop a create (#20: a test node killed on purpose
 * made every other swarm test's provider refuse).
 *
 * Pure and conservative: an attribute this does not know (engine labels, a
 * malformed constraint) counts as satisfied, so such a node is still checked
 * and a problem there still refuses (fail closed).
 */
export interface SwarmNodeFacts {
  ID?: string;
  Description?: { Hostname?: string; Platform?: { OS?: string; Architecture?: string } };
  Spec?: { Role?: string; Labels?: Record<string, string> };
}

/** The node's value for ATTRIBUTE, null when it has none, undefined when the attribute is not one this knows. */
function attributeOf(node: SwarmNodeFacts, attribute: string): string | null | undefined {
  if (attribute.startsWith('node.labels.')) return node.Spec?.Labels?.[attribute.slice('node.labels.'.length)] ?? null;
  switch (attribute) {
    case 'node.id':
      return node.ID ?? null;
    case 'node.hostname':
      return node.Description?.Hostname ?? null;
    case 'node.role':
      return node.Spec?.Role ?? null;
    case 'node.platform.os':
      return node.Description?.Platform?.OS ?? null;
    case 'node.platform.arch':
      return node.Description?.Platform?.Architecture ?? null;
    default:
      return undefined;
  }
}

export function nodeMeetsConstraints(node: SwarmNodeFacts, constraints: readonly string[]): boolean {
  return constraints.every((constraint) => {
    const match = /^\s*([^=!\s]+)\s*(==|!=)\s*(.*?)\s*$/.exec(constraint);
    if (match === null) return true;
    const [, attribute, op, expected] = match as unknown as [string, string, '==' | '!=', string];
    const actual = attributeOf(node, attribute);
    if (actual === undefined) return true;
    // Swarm: `==` needs the value (a node without the label does not match); `!=` holds for a node without it. Compared
    // ignoring case, as swarmkit compares: were Swarm stricter, this would only judge more nodes, never fewer.
    const same = actual !== null && actual.toLowerCase() === expected.toLowerCase();
    return op === '==' ? same : !same;
  });
}

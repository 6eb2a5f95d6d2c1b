// The fake provider's create+run+destroy cycle, as library-throughput times
// it and fake-ab compares two builds on it: one definition, so the A/B
// measures exactly the cycle the #20 aim counts.

/** An engine on `home` with the fake provider, from a build's `api` module, and one cycle on it. */
export function fakeCycleEngine(api, home, label = '') {
  const engine = api.createEngine({
    home,
    version: 'bench',
    defaultProvider: 'fake',
    providers: { fake: () => api.createFakeProvider() },
  });
  const cycle = async () => {
    const created = await engine.create({ provider: 'fake' });
    const id = created.provenance.workspace_id;
    const ran = await engine.run({ workspaceId: id, argv: ['echo', 'hello'] });
    if (ran.status !== 'success') throw new Error(`${label}run: ${ran.status}`);
    await engine.destroy({ workspaceId: id });
  };
  return { engine, cycle };
}

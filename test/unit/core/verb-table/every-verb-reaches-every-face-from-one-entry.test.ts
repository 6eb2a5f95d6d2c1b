/**
 * A verb is declared once, in the verb table, and every face takes it from
 * there (#11): the engine has its method, the CLI its command with a flag or
 * argument for every input key, and MCP its tool (unless the table keeps it
 * off MCP) with the table's schema and annotations from what it does.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VERBS } from '../../../../src/cli/catalog.js';
import type { EngineVerbSpec } from '../../../../src/cli/verb-commands.js';
import { VERB_TABLE } from '../../../../src/core/verb-table/verb-table.js';
import { TOOLS } from '../../../../src/mcp/tools/index.js';
import { makeTestEngine } from '../../../helpers/engine.js';

describe('the verb table', () => {
  it('gives the engine one method per verb', () => {
    const t = makeTestEngine();
    try {
      for (const verb of VERB_TABLE) expect(typeof (t.engine as unknown as Record<string, unknown>)[verb.method], verb.name).toBe('function');
    } finally {
      t.cleanup();
    }
  });

  it('gives the CLI a command whose arguments and flags cover every input key', () => {
    for (const verb of VERB_TABLE) {
      // The CLI may spell a verb in two words (events-claim is `events claim`): it is found by the table's name.
      const spec = VERBS.find((v) => (v as EngineVerbSpec).tableName === verb.name) as EngineVerbSpec | undefined;
      expect(spec, verb.name).toBeDefined();
      const keys = Object.keys(verb.input(z).shape);
      const covered = new Set([...spec!.argKeys, ...spec!.inputOptions.map((o) => o.key), ...(spec!.takesProvider ? ['provider'] : [])]);
      // Keys the CLI fills from several flags or from the caller's environment (create's budget, declare's purpose) are named by its adapter.
      const filledByAdapter = {
        create: ['budget', 'reviewPolicy'],
        fork: ['budget'],
        declare: ['purpose'],
        plan: ['env'],
        prepare: ['env'],
        doctor: ['env'],
        // A batch's jobs reach the CLI as --spec FILE|- (its text: the engine parses it), the same jobs the library and MCP give as data.
        batch: ['jobs'],
        // --secret NAME@HOST reads the value from the caller's environment, as --env NAME does (#18 item 3).
        run: ['secrets'],
      } as Record<string, string[]>;
      for (const key of filledByAdapter[verb.name] ?? []) covered.add(key);
      expect(
        keys.filter((key) => !covered.has(key)),
        verb.name,
      ).toEqual([]);
    }
  });

  it('gives MCP a tool per verb it offers, with the annotations its effect implies', () => {
    const offered = VERB_TABLE.filter((verb) => verb.onMcp !== false);
    expect(TOOLS.map((tool) => tool.name)).toEqual(offered.map((verb) => verb.name));
    for (const verb of offered) {
      const tool = TOOLS.find((t) => t.name === verb.name)!;
      expect(tool.annotations, verb.name).toMatchObject({
        readOnlyHint: verb.effect === 'reads',
        destructiveHint: verb.effect === 'destroys',
        idempotentHint: verb.idempotent,
      });
      const omitted = verb.mcpOmits ?? [];
      expect(Object.keys(tool.input.shape), verb.name).toEqual(Object.keys(verb.input(z).shape).filter((key) => !omitted.includes(key)));
    }
  });

  it('refuses a key the schema does not name, at any depth, before the verb runs', async () => {
    const t = makeTestEngine();
    try {
      await expect(t.engine.create({ budget: { memory: 1 } } as never)).rejects.toMatchObject({
        code: 'BAD_ARGUMENT',
        message: expect.stringContaining("'budget.memory'"),
      });
      await expect(t.engine.status({ workspace: 'x' } as never)).rejects.toMatchObject({
        code: 'BAD_ARGUMENT',
        message: expect.stringContaining("'workspace'"),
      });
      await expect(t.engine.run({ workspaceId: 'w', argv: ['true'], inputs: [{ destination: 'a', hostPath: '/x', mode: 1 }] } as never)).rejects.toMatchObject({
        message: expect.stringContaining("'inputs[0].mode'"),
      });
    } finally {
      t.cleanup();
    }
  });
});

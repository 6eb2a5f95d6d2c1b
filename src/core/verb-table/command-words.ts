/**
 * How a person types a verb at the shell: the verb's name, except for the
 * verb groups the CLI spells in two words (`events claim` for events-claim,
 * `batch cancel` for batch-cancel). A face that cannot run a verb itself (MCP,
 * for the operator's verbs) names the command with this, so it never names a
 * `headspace batch-cancel` that does not exist. The CLI's own spelling is its
 * adapters' `words`; test/unit/cli/every-verbs-command-words-match-the-cli.test.ts
 * keeps the two equal.
 */
const TWO_WORD_GROUPS = ['events', 'batch'] as const;

export function commandWords(verb: string): string {
  const group = TWO_WORD_GROUPS.find((g) => verb.startsWith(`${g}-`));
  return group === undefined ? verb : `${group} ${verb.slice(group.length + 1)}`;
}

/**
 * A verb's input named in an error's text, for each face to spell: `{{quorum}}`,
 * or `{{strategy=quorum}}` for a value given to it. Core names no flag, yet a
 * batch refusal once told a CLI user about "the quorum strategy" and "a
 * quorum" when what they typed was `--strategy quorum --quorum K`: an error
 * built with `inputsOf: VERB` keeps its text with these marks, the library
 * and MCP read it with the inputs' field names (the error's message and
 * hint), and the CLI spells them as the flags that fill them
 * (cli/render-error.ts).
 */
export function inputRef(key: string, value?: string | number): string {
  return `{{${key}${value === undefined ? '' : `=${value}`}}}`;
}

/** How a face writes an input (and the value given to it). */
export type SpellInput = (key: string, value: string | undefined) => string;

/** The library's and MCP's spelling: the field's name, a value as JSON gives it (`quorum: 2`, `strategy: "quorum"`). */
export const fieldSpelling: SpellInput = (key, value) =>
  value === undefined ? key : `${key}: ${/^-?\d+(\.\d+)?$/.test(value) ? value : JSON.stringify(value)}`;

/** Replaces each input mark in text by its face's spelling. */
export function spellInputs(text: string, spell: SpellInput): string {
  return text.replace(/\{\{([A-Za-z][A-Za-z0-9]*)(?:=([^}]*))?\}\}/g, (_m, key: string, value: string | undefined) => spell(key, value));
}

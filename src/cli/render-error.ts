import type { EngineError } from '../core/errors.js';
import { escapeForTerminal } from '../core/result/visible-text.js';
import { EXIT_CODES } from '../core/status.js';
import { withAction, type RenderAction } from '../core/next-action.js';
import { spellInputs } from '../core/verb-table/command-words.js';
import { cliActionRenderer, cliInputSpelling } from './render-action.js';

/**
 * Errors are rendered once, here: `error:` and `hint:` lines on stderr (the
 * category named inline only for 3–8, where it tells the caller why), or
 * under --json a `{code, message, remediation, category}` document on stderr
 * with stdout left empty. Never a stack trace. A hint's suggested call
 * (`error.action`) follows it as a shell command.
 */
export function renderErrorText(error: EngineError, renderAction: RenderAction = cliActionRenderer()): string {
  const category = error.category;
  const code = EXIT_CODES[category];
  const prefix = code >= 3 ? `${category}: ` : '';
  const lines = [`error: ${prefix}${oneLine(cliMessage(error))}`];
  lines.push(`hint: ${oneLine(remediation(error, renderAction) ?? 'run `headspace explain exit-codes` or `headspace --help`')}`);
  return `${lines.join('\n')}\n`;
}

export function renderErrorJson(error: EngineError, renderAction: RenderAction = cliActionRenderer()): string {
  const category = error.category;
  const action = error.action === undefined ? {} : { action: error.action };
  return `${JSON.stringify({ code: EXIT_CODES[category], message: cliMessage(error), remediation: remediation(error, renderAction) ?? null, category, reason: error.code, ...action })}\n`;
}

/** The message with the inputs it names spelled as the flags that fill them (the engine's message spells field names). */
function cliMessage(error: EngineError): string {
  return error.marked === undefined ? error.message : spellInputs(error.marked.message, cliInputSpelling(error.marked.verb));
}

/** The hint (its inputs spelled as flags), then the call it suggests in shell syntax. */
function remediation(error: EngineError, renderAction: RenderAction): string | undefined {
  const hint = error.marked?.hint === undefined ? error.hint : spellInputs(error.marked.hint, cliInputSpelling(error.marked.verb));
  if (hint === undefined) return error.action === undefined ? undefined : renderAction(error.action);
  return withAction(hint, error.action, renderAction);
}

/** One line, with every control and bidi character shown as an escape: messages quote job-chosen file names (#10 item 11). */
function oneLine(text: string): string {
  return escapeForTerminal(text.replace(/\n+/g, ' '));
}

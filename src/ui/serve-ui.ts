/**
 * What `headspace ui [--port N] [--open] [--allow-actions]` runs: the
 * dashboard's server until SIGINT/SIGTERM (the returned promise settles only
 * then, because the bin exits as soon as main() resolves). The page's URL,
 * with its token, is the one line on stdout (a JSON document under --json);
 * diagnostics go to stderr.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHeadspace } from '../api/index.js';
import { parsePort } from '../mcp/loopback.js';
import { DEFAULT_UI_PORT, startUiServer } from './ui-server.js';

export interface ServeUiOptions {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Raw --port value. */
  port?: string;
  open?: boolean;
  allowActions?: boolean;
  provider?: string;
  /** --json: the first line on stdout is `{"url", "port", "allow_actions"}` instead of the bare URL. */
  json?: boolean;
  /** Default destination folder of an export (the directory the server started in). */
  cwd?: string;
}

export async function serveUi(options: ServeUiOptions): Promise<number> {
  const port = options.port === undefined ? DEFAULT_UI_PORT : parsePort(options.port);
  // One engine for the server's life; 'ui' marks the intents of the actions a person confirms in the page.
  const engine = createHeadspace({
    ...(options.env.HEADSPACE_HOME ? { home: options.env.HEADSPACE_HOME } : {}),
    ...(options.provider ? { defaultProvider: options.provider } : {}),
    actor: 'ui',
  });
  const log = (line: string) => void options.stderr.write(`${line}\n`);
  try {
    if (options.provider !== undefined) await engine.requireProvider(options.provider);
    const running = await startUiServer({ engine, port, allowActions: options.allowActions === true, exportDir: options.cwd ?? process.cwd(), log });
    options.stdout.write(
      `${options.json === true ? JSON.stringify({ url: running.url, port: running.port, allow_actions: options.allowActions === true }) : running.url}\n`,
    );
    log(
      `headspace ui: serving the dashboard on 127.0.0.1:${running.port} (${options.allowActions === true ? 'actions on: stop, destroy, export' : 'read-only'}); Ctrl-C stops it`,
    );
    const opened = options.open === true ? openInBrowser(running.url, engine.home, log) : null;
    await untilSignalled();
    log('headspace ui: stopping');
    if (opened !== null) rmSync(opened, { force: true });
    await running.close();
    return 0;
  } finally {
    engine.close();
  }
}

function untilSignalled(): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/**
 * xdg-open (Linux) or open (macOS), detached, given a private file that sends
 * the browser on to the URL: the URL holds the token, and an opener's argv
 * (and a browser started by it) can be read by every local user in `ps` (red
 * team, host surfaces). The file is 0600 in the home's `ui/` folder (0700)
 * and is removed when the server stops. A missing opener is said, not fatal:
 * the URL is printed anyway. Returns the file's path.
 */
function openInBrowser(url: string, home: string, log: (line: string) => void): string {
  const dir = join(home, 'ui');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = join(dir, `open-${process.pid}.html`);
  rmSync(file, { force: true });
  writeFileSync(file, redirectPage(url), { mode: 0o600, flag: 'wx' });
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  const child = spawn(opener, [file], { detached: true, stdio: 'ignore' });
  child.on('error', () => log(`headspace ui: could not run ${opener}; open the URL above yourself`));
  child.unref();
  return file;
}

/** A page that replaces itself with `url` at once (no referrer sent), with a link for a browser that runs no refresh. */
export function redirectPage(url: string): string {
  const href = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${href}">\n<title>headspace dashboard</title>\n<p><a href="${href}">Open the headspace dashboard</a></p>\n`;
}

/** The CLI's only contact with the outside: streams and environment, injectable for tests. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** True when stderr is a terminal (progress may be drawn). */
  stderrIsTty: boolean;
  /** True when stdout is a terminal: job-controlled bytes are then shown as escapes (#10 item 10). */
  stdoutIsTty: boolean;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stderrIsTty: Boolean(process.stderr.isTTY),
    stdoutIsTty: Boolean(process.stdout.isTTY),
  };
}

/** Resolves once the bytes are handed to the OS, so the bin can exit without losing output. */
export function writeAll(stream: NodeJS.WritableStream, data: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (data.length === 0) return resolve();
    stream.write(data, () => resolve());
  });
}

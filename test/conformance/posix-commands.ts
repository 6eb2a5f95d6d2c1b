/**
 * The conformance commands for a provider that runs real programs on a POSIX
 * userland with python3 (native, docker): one list, so the two bindings run
 * the same commands and differ only where their userlands do.
 */
import { createHash } from 'node:crypto';
import type { ConformanceCommands } from './provider-suite.js';

export const POSIX_COMMANDS: ConformanceCommands = {
  print: (text) => ['echo', text],
  exitSeven: ['sh', '-c', 'exit 7'],
  absent: ['no-such-command-here'],
  unrunnable: {
    argv: ['./tool.sh'],
    async setup(provider, workspaceId) {
      // Written without an execute bit: exec fails with EACCES → 126.
      const data = Buffer.from('#!/bin/sh\necho never\n');
      await provider.write(workspaceId, 'tool.sh', data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: true });
    },
  },
  // Writes every byte (bytes(n) would map lazily-zeroed pages the kernel never charges).
  memoryHog: ['python3', '-c', 'x = b"\\x01" * (1 << 30)'],
  slow: ['sleep', '30'],
  writeFile: (path, text) => ['sh', '-c', 'printf "%s" "$2" > "$1"', 'sh', path, text],
  printEnv: (name) => ['printenv', name],
  // curl reads http_proxy from the environment the provider set for an allow-list job.
  fetch: (url) => ['curl', '-sS', '-f', '-m', '10', url],
  fetchWithHeaderFrom: (url, name) => ['sh', '-c', `curl -sS -f -m 10 -H "X-Key: $${name}" "$0"`, url],
  symlink: (target, path) => ['ln', '-s', target, path],
  chmod: (mode, path) => ['chmod', mode, path],
  writeRawName: (name, text) => ['python3', '-c', 'import sys; open(bytes.fromhex(sys.argv[1]), "w").write(sys.argv[2])', name.toString('hex'), text],
};

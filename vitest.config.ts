import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Native-provider tests share cgroups and the CPU of a 2-core machine.
    fileParallelism: true,
    maxWorkers: 2,
  },
});

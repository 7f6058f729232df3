import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Native property tests and the simulated node are CPU-heavy; the machines have 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
  },
});

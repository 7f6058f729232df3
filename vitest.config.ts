import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Native property tests and the simulated node are CPU-heavy; the machines have 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
    // Test files share a worker's module cache (no module is re-imported per file): about a third of
    // the suite's time was imports. Safe here: no test mocks modules or globals; each test builds its own app.
    isolate: false,
  },
});

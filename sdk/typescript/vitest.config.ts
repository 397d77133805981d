import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two projects: `unit` (vectors, proofs, the route table; no node) and `e2e` (the SDK in Node.js
// and in Chromium against one real `drover dev` node that test/e2e/devnet.ts starts and stops).
// `npm test` runs both; `npm run test:unit` / `npm run test:e2e` one.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        // The examples import the package by name: here, its source.
        resolve: { alias: { '@drover/sdk': fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/devnet.ts'],
          // The files share one chain (and its faucet limit): one at a time.
          fileParallelism: false,
          // Transactions wait for finality; a debug build is slow to start.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});

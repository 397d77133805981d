import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The end-to-end tests start a node and wait for blocks.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

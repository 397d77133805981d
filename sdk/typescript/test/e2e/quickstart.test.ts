// The README's five-minute example (examples/quickstart.mjs, which README.md shows verbatim) runs as
// written against the devnet, `@drover/sdk` resolving to this source tree.
import { expect, inject, it, vi } from 'vitest';

const { url, genesis } = inject('devnet');

it('the quickstart funds a key, sends 1.5 DRV, watches it finalize and verifies the balance', async () => {
  process.env.DROVER_URL = url;
  process.env.DROVER_GENESIS = genesis;
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    await import('../../examples/quickstart.mjs');
  } finally {
    log.mockRestore();
  }
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^0x[0-9a-f]{40} got 100 DRV$/);
  expect(lines[1]).toMatch(/^0x[0-9a-f]{64}: success in block \d+, fee [\d.]+ DRV$/);
  expect(lines[2]).toMatch(/^0x[0-9a-f]{40} holds 1\.5 DRV \(verified at height \d+\)$/);
});

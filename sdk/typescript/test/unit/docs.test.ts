// The README shows examples/quickstart.mjs verbatim (the end-to-end tests run that file), and the
// genesis identity a client trusts is read from a genesis file as the node writes it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { genesisIdentity } from '../../src/index.js';

const text = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

describe('docs', () => {
  it('the README quickstart is examples/quickstart.mjs', () => {
    const shown = /<!-- quickstart -->\n```js\n([\s\S]*?)```\n<!-- \/quickstart -->/.exec(text('../../README.md'));
    expect(shown?.[1]).toBe(text('../../examples/quickstart.mjs'));
  });
});

describe('genesisIdentity', () => {
  const identity: string = JSON.parse(text('../../../vectors/proofs.json')).identities.network;

  it('reads the top-level identity, plain or quoted', () => {
    for (const line of [`identity: ${identity}`, `identity: '${identity}'`, `identity: "${identity}"`]) {
      expect(genesisIdentity(`network: drover-devnet\n${line}\nvalidators:\n- public_key: ab\n`)).toBe(identity);
    }
  });

  it('refuses a file without one, a nested one, or a value that is not a group key', () => {
    expect(() => genesisIdentity('network: x\n')).toThrow();
    expect(() => genesisIdentity(`validators:\n  identity: ${identity}\n`)).toThrow();
    expect(() => genesisIdentity(`identity: ${'00'.repeat(96)}\n`)).toThrow();
    expect(() => genesisIdentity(`identity: ${identity.slice(2)}\n`)).toThrow();
  });
});

// Proofs a live devnet served, with every tampering, and the outcome the Rust verifier gave each
// (sdk/vectors/proofs.json, written and checked by crates/cli/tests/sdk_vectors.rs): the
// TypeScript verifier must accept and refuse exactly the same, for the same reason.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';

const vectors = JSON.parse(readFileSync(new URL('../../../vectors/proofs.json', import.meta.url), 'utf8'));

function outcome(verify: string, proof: any, identity: string): string {
  try {
    if (verify === 'account') sdk.verifyAccount(proof, identity);
    else if (verify === 'storage') sdk.verifyStorage(proof, identity);
    else if (verify === 'tx') sdk.verifyTx(proof, identity);
    else sdk.verifyReceipt(proof, identity);
    return 'ok';
  } catch (e) {
    if (e instanceof sdk.VerifyError) return e.kind;
    throw e;
  }
}

describe('proof vectors', () => {
  for (const c of vectors.cases) {
    it(`${c.name} → ${c.expect}`, () => {
      expect(outcome(c.verify, c.proof, vectors.identities[c.identity])).toBe(c.expect);
    });
  }

  it('a verified token balance decodes as [balance, frozen]', () => {
    const c = vectors.cases.find((x: any) => x.name === 'token balance');
    const verified = sdk.verifyStorage(c.proof, vectors.identities.network);
    expect(sdk.decodeCanonical(verified.value!)).toEqual([250, false]);
    expect(sdk.toHex(verified.storageKey!)).toBe(`0x62${vectors.token.slice(2)}${vectors.holder.slice(2)}`);
  });

  it('a verified account carries the certified block', () => {
    const c = vectors.cases.find((x: any) => x.name === 'account');
    const verified = sdk.verifyAccount(c.proof, vectors.identities.network);
    // Dev key 5 holds its devnet allocation (1,000,000 DRV) and the 12,345 base units sent to it.
    expect(verified.account).toEqual({ nonce: 0n, balance: 1_000_000n * 10n ** 9n + 12_345n });
    expect(verified.block.height).toBe(BigInt(c.proof.height));
    expect(verified.block.hash).toBe(c.proof.block_hash);
  });

  it('a multi-proof keeps refused items in place', () => {
    const ok = vectors.cases.find((x: any) => x.name === 'transaction').proof;
    const results = sdk.verifyMulti({ results: [ok, { code: 3001, error: 'invalid_address', message: 'bad' }] } as any, vectors.identities.network);
    expect((results[0] as sdk.Verified).kind).toBe('tx');
    expect((results[1] as sdk.VerifyError).kind).toBe('Refused');
  });

  it('refuses a group key that is not one', () => {
    expect(() => sdk.parseIdentity('00'.repeat(96))).toThrow();
    expect(() => sdk.parseIdentity('0102')).toThrow();
  });
});

// Proofs a live devnet served, with every tampering, and the outcome the Rust verifier gave each
// (sdk/vectors/proofs.json, written and checked by crates/cli/tests/sdk_vectors.rs), each checked
// against the request it names (a `/proof/multi` request item: the record asked for): the
// TypeScript verifier must accept and refuse exactly the same, for the same reason.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';

const vectors = JSON.parse(readFileSync(new URL('../../../vectors/proofs.json', import.meta.url), 'utf8'));

function outcome(verify: string, request: sdk.ProofRequest, proof: any, identity: string): string {
  try {
    if (verify === 'account') sdk.verifyAccount(proof, identity, request.address!);
    else if (verify === 'storage') sdk.verifyStorage(proof, identity, request.address!, request.key!);
    else if (verify === 'tx') sdk.verifyTx(proof, identity, request.tx_hash!);
    else sdk.verifyReceipt(proof, identity, request.tx_hash!);
    return 'ok';
  } catch (e) {
    if (e instanceof sdk.VerifyError) return e.kind;
    throw e;
  }
}

describe('proof vectors', () => {
  for (const c of vectors.cases) {
    it(`${c.name} → ${c.expect}`, () => {
      expect(outcome(c.verify, c.request, c.proof, vectors.identities[c.identity])).toBe(c.expect);
    });
  }

  it('refuses a valid proof of another record than the one asked for', () => {
    const refusals = vectors.cases.filter((x: any) => / proof of another /.test(x.name)).map((x: any) => x.expect);
    expect(refusals).toEqual(['WrongKey', 'WrongKey', 'WrongKey', 'WrongTx', 'WrongTx']);
  });

  it('a verified token balance decodes as [balance, frozen]', () => {
    const c = vectors.cases.find((x: any) => x.name === 'token balance');
    const verified = sdk.verifyStorage(c.proof, vectors.identities.network, c.request.address, c.request.key);
    expect(sdk.decodeCanonical(verified.value!)).toEqual([250, false]);
    expect(sdk.toHex(verified.storageKey!)).toBe(`0x62${vectors.token.slice(2)}${vectors.holder.slice(2)}`);
  });

  it('a verified account carries the certified block', () => {
    const c = vectors.cases.find((x: any) => x.name === 'account');
    const verified = sdk.verifyAccount(c.proof, vectors.identities.network, c.request.address);
    // Dev key 5 holds its devnet allocation (1,000,000 DRV) and the 12,345 base units sent to it.
    expect(verified.account).toEqual({ nonce: 0n, balance: 1_000_000n * 10n ** 9n + 12_345n });
    expect(verified.block.height).toBe(BigInt(c.proof.height));
    expect(verified.block.hash).toBe(c.proof.block_hash);
  });

  it('a multi-proof binds each item to its request and keeps refused items in place', () => {
    const tx = vectors.cases.find((x: any) => x.name === 'transaction');
    const account = vectors.cases.find((x: any) => x.name === 'account');
    const refused = { code: 3001, error: 'invalid_address', message: 'bad' };
    const requests: sdk.ProofRequest[] = [tx.request, { kind: 'account', address: '0x12' }, account.request, tx.request];
    const results = sdk.verifyMulti({ results: [tx.proof, refused, tx.proof] } as any, vectors.identities.network, requests);
    expect((results[0] as sdk.Verified).kind).toBe('tx');
    expect((results[1] as sdk.VerifyError).kind).toBe('Refused');
    // An answer swapped with another request's proof, and a missing answer, are refused.
    expect((results[2] as sdk.VerifyError).kind).toBe('WrongKind');
    expect((results[3] as sdk.VerifyError).kind).toBe('Unanswered');
    const swapped = sdk.verifyMulti({ results: [account.proof] } as any, vectors.identities.network, [{ kind: 'account', address: vectors.token }]);
    expect((swapped[0] as sdk.VerifyError).kind).toBe('WrongKey');
    const unnamed = sdk.verifyMulti({ results: [account.proof] } as any, vectors.identities.network, [{ kind: 'balance' }]);
    expect((unnamed[0] as sdk.VerifyError).kind).toBe('InvalidRequest');
  });

  it('refuses a group key that is not one', () => {
    expect(() => sdk.parseIdentity('00'.repeat(96))).toThrow();
    expect(() => sdk.parseIdentity('0102')).toThrow();
  });
});

// Reading the node's JSON without losing precision, and amounts as bigint per the OpenAPI shapes.
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/index.js';
import { stringifyJson, withAmounts } from '../../src/json.js';

const U128_MAX = (1n << 128n) - 1n;

describe('JSON', () => {
  it('reads integers beyond 2^53 as bigint and the rest as numbers', () => {
    const parsed = parseJson(`{"big": ${U128_MAX}, "negative": -9007199254740993, "small": 5, "float": 1.5, "list": [9007199254740991]}`);
    expect(parsed).toEqual({ big: U128_MAX, negative: -9007199254740993n, small: 5, float: 1.5, list: [9007199254740991] });
  });

  it('keeps a __proto__ key as data', () => {
    const parsed = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses what is not JSON', () => {
    expect(() => parseJson('{"a": }')).toThrow();
    expect(() => parseJson('[1] 2')).toThrow();
  });

  it('writes bigints as JSON integers', () => {
    expect(stringifyJson({ amount: U128_MAX, n: 1, s: 'x' })).toBe(`{"amount":${U128_MAX},"n":1,"s":"x"}`);
  });

  it('turns the amounts of a response into bigint, nested ones included', () => {
    const account = withAmounts('GET /account/{address}', parseJson('{"address": "0x01", "nonce": 3, "balance": 1180591620717411303424}'));
    expect(account).toEqual({ address: '0x01', nonce: 3, balance: 1n << 70n });
    const tokens = withAmounts('GET /tokens', parseJson('{"tokens": [{"symbol": "GLD", "supply": "1000", "max_supply": null, "decimals": 2}], "total_count": 1, "offset": 0, "limit": 50}'));
    expect(tokens).toMatchObject({ tokens: [{ symbol: 'GLD', supply: 1000n, max_supply: null, decimals: 2 }], total_count: 1 });
  });

  it('reads native amounts as JSON integers of any size: runners, delegations, jobs, governance', () => {
    const runner = withAmounts('GET /runner/{address}', parseJson(`{"stake": ${U128_MAX}, "delegated_stake": 7, "rate_card": {"price_per_job": 5}, "unbonding": [{"amount": 9007199254740993, "release_height": 2}]}`));
    expect(runner).toMatchObject({ stake: U128_MAX, delegated_stake: 7n, rate_card: { price_per_job: 5n }, unbonding: [{ amount: 9007199254740993n, release_height: 2 }] });
    const delegations = withAmounts('GET /account/{address}/delegations', parseJson(`{"delegations": [{"amount": ${U128_MAX}, "rewards": 0, "pending": []}]}`));
    expect(delegations).toMatchObject({ delegations: [{ amount: U128_MAX, rewards: 0n }] });
    const job = withAmounts('GET /job/{job_id}', parseJson('{"max_price": 3, "escrow": 18446744073709551616, "callback_reserve": 0}'));
    expect(job).toMatchObject({ max_price: 3n, escrow: 1n << 64n, callback_reserve: 0n });
    const proposal = withAmounts('GET /governance/proposal/{id}', parseJson(`{"votes_for": ${U128_MAX}, "deposit": 1, "votes": [{"weight": 2}], "changes": {"target_cycles": "20000000"}}`));
    expect(proposal).toMatchObject({ votes_for: U128_MAX, deposit: 1n, votes: [{ weight: 2n }], changes: { target_cycles: '20000000' } });
  });
});

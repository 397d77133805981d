// Transaction limits, as the Rust `TxBuilder`: a request whose limits are open does not build;
// transfers and system calls carry theirs; an actor call, a deploy and an upgrade leave them open
// unless given; and `DroverClient.send` sizes open limits from the node's simulation before it
// signs (here against a scripted node: what each route answers, and what was asked of it).
import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';
import { DroverClient, LimitsOpenError, SimulationFailedError, Wallet } from '../../src/index.js';

const context: sdk.TxContext = { chainId: 100n, nonce: 7n, fees: { maxFeePerCycle: 20n, maxFeePerCell: 4n, tipPerCycle: 2n, tipPerCell: 1n } };
const actor = '0x1111111111111111111111111111111111111111';
const increment: sdk.Message = { handler: 'increment', payload: new Uint8Array() };

function openMeter(build: () => unknown): string {
  try {
    build();
  } catch (e) {
    if (e instanceof LimitsOpenError) return e.meter;
    throw e;
  }
  return 'built';
}

describe('limits', () => {
  it('a request with an open limit does not build', () => {
    const call = sdk.actorCallRequest(actor, increment);
    expect(openMeter(() => sdk.buildTransaction(call, context))).toBe('cycles');
    expect(openMeter(() => sdk.buildTransaction({ ...call, cyclesLimit: 9n }, context))).toBe('cells');
    expect(() => sdk.buildTransaction(call, context)).toThrow('the cycles limit is open');
    const tx = sdk.buildTransaction({ ...call, cyclesLimit: 50n, cellsLimit: 6n }, context);
    expect([tx.cyclesLimit, tx.cellsLimit]).toEqual([50n, 6n]);
  });

  it('actor calls, deploys and upgrades leave the limits they are not given open', () => {
    const deploy = sdk.deployRequest({ code: '0x0061736d', salt: '0x01' });
    const upgrade = sdk.upgradeRequest({ actor, code: '0x0061736d' }, { cellsLimit: 3n });
    for (const request of [sdk.actorCallRequest(actor, increment), deploy]) {
      expect([request.cyclesLimit, request.cellsLimit]).toEqual([undefined, undefined]);
      expect(sdk.limitsSet(request)).toBe(false);
    }
    expect([upgrade.cyclesLimit, upgrade.cellsLimit]).toEqual([undefined, 3n]);
    const given = sdk.actorCallRequest(actor, increment, { cyclesLimit: 40_000n, cellsLimit: 64n, value: 5n });
    expect([given.cyclesLimit, given.cellsLimit, given.value]).toEqual([40_000n, 64n, 5n]);
  });

  it('transfers and system calls carry the limits that cover them', () => {
    const transfer = sdk.buildTransaction(sdk.transferRequest(actor, 5n), context);
    expect([transfer.cyclesLimit, transfer.cellsLimit]).toEqual([sdk.TRANSFER_CYCLES, 0n]);
    const call = sdk.tokens.transfer(actor, actor, 1n);
    const tx = sdk.buildTransaction(sdk.systemCallRequest(call), context);
    expect([tx.cyclesLimit, tx.cellsLimit]).toEqual([call.cyclesLimit, call.cellsLimit]);
  });

  it('the simulation request leaves open limits to the node; its suggestion fills only those', () => {
    const sender = Wallet.dev(1).address;
    const call = { ...sdk.actorCallRequest(actor, increment), cellsLimit: 6n };
    const request = sdk.simulateRequest(call, sender, context);
    expect(request).toMatchObject({ from: sender, to: actor, nonce: 7n, cells_limit: 6n, max_fee_per_cycle: 20n, tip_per_cell: 1n });
    expect('cycles_limit' in request).toBe(false);
    // u64 fields beyond 2^53 reach the node exactly, not rounded to a float.
    const far = sdk.simulateRequest({ ...call, cyclesLimit: 2n ** 64n - 1n }, sender, { ...context, nonce: 2n ** 60n + 1n });
    const body = JSON.stringify(far, (_, value) => (typeof value === 'bigint' ? value.toString() : value));
    expect(body).toContain('"nonce":"1152921504606846977"');
    expect(body).toContain('"cycles_limit":"18446744073709551615"');
    const sized = sdk.limitsFrom(call, { suggested_cycles_limit: 30_000, suggested_cells_limit: 99 });
    expect([sized.cyclesLimit, sized.cellsLimit]).toEqual([30_000n, 6n]);
  });
});

/** A node that answers from `simulation`, recording each request's method, path and JSON body. */
function scriptedNode(simulation: Record<string, unknown>) {
  const asked: { route: string; body?: unknown }[] = [];
  const answers: Record<string, unknown> = {
    'GET /chain-info': { chain_id: 100 },
    'GET /basefee': { basefee_cycle: '7', basefee_cell: '1', suggested_max_fee_per_cycle: '20', suggested_max_fee_per_cell: '4', suggested_tip_per_cycle: '2', suggested_tip_per_cell: '1' },
    'POST /simulate': simulation,
    'POST /submit_wait': { results: [{ status: 'success', hash: '0x00' }] },
  };
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url)).pathname;
    const route = `${init?.method ?? 'GET'} ${path}`;
    asked.push({ route, ...(typeof init?.body === 'string' || init?.body instanceof Uint8Array ? { body: init.body } : {}) });
    const answer = answers[route];
    if (answer === undefined) return new Response(JSON.stringify({ code: 404, error: 'not_found', message: route }), { status: 404 });
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return { client: new DroverClient('http://127.0.0.1:1', { fetch: fetch as typeof globalThis.fetch }), asked };
}

const simulated = (status: string, extra: Record<string, unknown> = {}) => ({
  status, cycles_used: 25_000, cells_used: 8, fee: 0, fee_burned: 0, fee_tip: 0, events: [], cycles_limit: 0, cells_limit: 0,
  suggested_cycles_limit: 26_000, suggested_cells_limit: 10, margin_percent: 20, nonce: 0, block_height: 3, state_root: '0x00', ...extra,
});

describe('DroverClient.send', () => {
  const wallet = Wallet.dev(1);

  it('sizes open limits from a simulation, then signs with the values it was simulated with', async () => {
    const { client, asked } = scriptedNode(simulated('success'));
    const sent = await client.send(wallet, sdk.actorCallRequest(actor, increment));
    expect([sent.transaction.cyclesLimit, sent.transaction.cellsLimit]).toEqual([26_000n, 10n]);
    expect([sent.transaction.chainId, sent.transaction.nonce, sent.transaction.maxFeePerCycle]).toEqual([100n, 0n, 20n]);
    expect(sdk.recoverSender(sent.transaction)).toBe(wallet.address);
    expect(sent.simulation?.status).toBe('success');
    // The chain id, nonce and fees are asked once; the simulation leaves the limits to the node.
    expect(asked.map((a) => a.route).sort()).toEqual(['GET /account/' + wallet.address, 'GET /basefee', 'GET /chain-info', 'POST /simulate', 'POST /submit_wait'].sort());
    const body = JSON.parse(new TextDecoder().decode(bytesOf(asked.find((a) => a.route === 'POST /simulate')!.body)));
    expect(['cycles_limit' in body, 'cells_limit' in body, body.nonce]).toEqual([false, false, 0]);
  });

  it('sends nothing when the simulation finds the call would fail', async () => {
    const { client, asked } = scriptedNode(simulated('reverted', { revert_reason: 'not yours' }));
    const refused = client.send(wallet, sdk.actorCallRequest(actor, increment));
    await expect(refused).rejects.toBeInstanceOf(SimulationFailedError);
    await expect(refused).rejects.toThrow('would be reverted (not yours): nothing was sent');
    expect(asked.some((a) => a.route.startsWith('POST /submit'))).toBe(false);
    // `prepare` hands the caller the transaction and the simulation to decide.
    const prepared = await client.prepare(wallet, sdk.actorCallRequest(actor, increment));
    expect(prepared.simulation?.status).toBe('reverted');
    expect(prepared.transaction.cyclesLimit).toBe(26_000n);
  });

  it('sends a request whose limits are set without a simulation', async () => {
    const { client, asked } = scriptedNode(simulated('reverted'));
    const sent = await client.send(wallet, sdk.actorCallRequest(actor, increment, { cyclesLimit: 50_000n, cellsLimit: 0n }));
    expect([sent.transaction.cyclesLimit, sent.transaction.cellsLimit, sent.simulation]).toEqual([50_000n, 0n, null]);
    expect(asked.some((a) => a.route === 'POST /simulate')).toBe(false);
  });
});

function bytesOf(body: unknown): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : (body as Uint8Array);
}

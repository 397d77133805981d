// The SDK against a real `drover dev` node (started by ./devnet.ts): the OpenAPI document it
// serves is the one the types were generated from; a new key is funded by the faucet and sends a
// transfer; a token is created and transferred; an actor is deployed at its predicted address and
// called, limits sized by simulation (a call that would fail is not sent); a runner registers and
// signs its heartbeat flow; a RAS session authenticates; lists page and blocks stream; history,
// blocks and events list what happened, a call's limits come from its simulation (with its trace),
// a transaction's outcome and events stream and resume; and every proof of what happened verifies
// against the genesis group key, while tampered ones are refused.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as sdk from '../../src/index.js';
import { DroverApiError, DroverClient, VerifyError, Wallet } from '../../src/index.js';

const { url, identity } = inject('devnet');
const client = new DroverClient(url);
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const counter = read('../../../vectors/actors.json').counter;
/** Another network's group key (from the proof vectors). */
const foreignIdentity: string = read('../../../vectors/proofs.json').identities.foreign;

const alice = Wallet.generate();
const bob = Wallet.generate();
let drip: bigint;
/** The counter actor the deploy test puts on the chain. */
let counterActor: sdk.Address;
/** The token the token test creates (its events' emitter). */
let tokenAddress: sdk.Address;

/** Sends `request` from `wallet`, waits for its receipt and checks it succeeded. */
async function succeed(wallet: Wallet, request: sdk.TxRequest) {
  const sent = await client.send(wallet, request);
  expect(sent.result.status, JSON.stringify(sent.result, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).toBe('success');
  const receipt = await client.waitForReceipt(sent.hash, { timeoutMs: 30_000 });
  expect(receipt.status).toBe('success');
  return { ...sent, receipt };
}

function refusal(check: () => unknown): string {
  try {
    check();
  } catch (e) {
    if (e instanceof VerifyError) return e.kind;
    throw e;
  }
  return 'accepted';
}

beforeAll(async () => {
  const funded = await client.faucet(alice.address);
  expect(funded.address).toBe(alice.address);
  await client.waitForReceipt(funded.tx_hash, { timeoutMs: 30_000 });
  drip = funded.amount;
});

describe('against a live devnet', () => {
  it('serves the OpenAPI document the SDK types were generated from', async () => {
    const served = await (await fetch(`${url}/api-docs/openapi.json`)).json();
    const committed = read('../../openapi.json');
    // On a difference: `npm run openapi:types -- --from <node url>` rewrites openapi.json and the types.
    expect(served).toEqual(committed);
  });

  it('funds a new key from the faucet and sends a transfer', async () => {
    expect(drip).toBeGreaterThan(0n);
    const before = await client.account(alice.address);
    expect(before?.balance).toBe(drip);
    const { hash, transaction, receipt } = await succeed(alice, sdk.transferRequest(bob.address, 12_345n));
    expect(transaction.chainId).toBe(await client.chainId());
    expect(receipt.tx_hash).toBe(hash);
    expect(receipt.from).toBe(alice.address);
    expect(await client.balance(bob.address)).toBe(12_345n);
    expect(await client.balance(alice.address)).toBe(drip - 12_345n - receipt.fee);

    const included = await client.transaction(hash);
    expect(included?.status).toBe('included');
    expect(included?.value).toBe(12_345n);
    expect(await client.receipt(`0x${'00'.repeat(32)}`)).toBeNull();
  });

  it('proves the transfer: account, transaction and receipt verify against the genesis key', async () => {
    const account = sdk.verifyAccount(await client.proofAccount(bob.address), identity, bob.address);
    expect(account.address).toBe(bob.address);
    expect(account.account).toEqual({ nonce: 0n, balance: 12_345n });

    const nobody = Wallet.generate().address;
    const absent = sdk.verifyAccount(await client.proofAccount(nobody), identity, nobody);
    expect(absent.account).toBeNull();

    // The certified block is the one the node lists at that height.
    const block = await client.block(account.block.height);
    expect(block?.hash).toBe(account.block.hash);
  });

  it('refuses a tampered proof and another network\'s key', async () => {
    const proof = await client.proofAccount(bob.address);
    expect(refusal(() => sdk.verifyAccount(proof, identity, bob.address))).toBe('accepted');
    // A balance the node did not prove: the record bytes change, the proof no longer holds.
    const record = sdk.fromBase64(proof.value!);
    record[record.length - 1]! ^= 1;
    expect(refusal(() => sdk.verifyAccount({ ...proof, value: sdk.toBase64(record) }, identity, bob.address))).toBe('ProofMismatch');
    expect(refusal(() => sdk.verifyAccount({ ...proof, height: proof.height + 1 }, identity, bob.address))).toBe('FieldMismatch');
    const flipped = proof.finalization.slice(0, -1) + (proof.finalization.endsWith('0') ? '1' : '0');
    expect(refusal(() => sdk.verifyAccount({ ...proof, finalization: flipped }, identity, bob.address))).toBe('Certificate');
    expect(refusal(() => sdk.verifyAccount(proof, foreignIdentity, bob.address))).toBe('Certificate');
    expect(refusal(() => sdk.verifyStorage(proof, identity, bob.address, '0x01'))).toBe('WrongKind');
    // A valid proof of another account than the one asked for.
    expect(refusal(() => sdk.verifyAccount(proof, identity, alice.address))).toBe('WrongKey');
  });

  it('creates a token and transfers it (tokens actor), and proves the balance', async () => {
    const symbol = 'SDK';
    const created = await succeed(alice, sdk.systemCallRequest(sdk.tokens.create({ name: 'SDK test', symbol, decimals: 2, initialSupply: 1_000_000n, mintable: false })));
    const token = sdk.tokenId(alice.address, symbol);
    tokenAddress = token;
    expect(created.receipt.events.length).toBeGreaterThan(0);
    expect((await client.token(token))?.supply).toBe(1_000_000n);
    await succeed(alice, sdk.systemCallRequest(sdk.tokens.transfer(token, bob.address, 250n)));
    expect((await client.tokenBalance(token, bob.address)).balance).toBe(250n);
    expect((await client.tokenBalance(token, alice.address)).balance).toBe(1_000_000n - 250n);
    const holdings = await client.accountTokens(bob.address);
    expect(holdings.tokens.map((t) => [t.token_id, t.balance])).toEqual([[token, 250n]]);

    // The tokens actor keeps a holder's balance under `b ‖ token ‖ holder`: [balance, frozen].
    const key = sdk.concat(Uint8Array.of(0x62), sdk.addressBytes(token), sdk.addressBytes(bob.address));
    const proven = sdk.verifyStorage(await client.proofStorage(sdk.SYSTEM.tokens, key), identity, sdk.SYSTEM.tokens, key);
    expect(sdk.decodeCanonical(proven.value!)).toEqual([250, false]);
  });

  it('deploys an actor at its predicted address and calls it; its storage is proven', async () => {
    const salt = sdk.randomBytes(8);
    const deploy: sdk.Deploy = { code: counter.code, manifest: counter.manifest, salt };
    const predicted = sdk.actorAddress(alice.address, salt, counter.code);
    const deployed = await succeed(alice, sdk.deployRequest(deploy));
    expect(deployed.receipt.to ?? null).toBeNull();
    counterActor = predicted;
    const actor = await client.actor(predicted);
    expect(actor?.address).toBe(predicted);
    expect((await client.actorManifest(predicted))?.entitlements).toEqual(counter.manifest);
    expect(sdk.toHex(sdk.fromBase64((await client.actorCode(predicted))!.code))).toBe(counter.code);

    // The deploy and the calls leave their limits open: `send` sizes them from a simulation.
    expect(deployed.simulation?.status).toBe('success');
    for (let i = 0; i < 2; i++) {
      const called = await succeed(alice, sdk.actorCallRequest(predicted, { handler: 'increment', payload: new Uint8Array() }));
      const simulation = called.simulation!;
      expect([called.transaction.cyclesLimit, called.transaction.cellsLimit]).toEqual([BigInt(simulation.suggested_cycles_limit), BigInt(simulation.suggested_cells_limit)]);
      expect(called.receipt.cells_used).toBeGreaterThan(0);
    }
    // A call the simulation finds would fail is not sent.
    const nonce = await client.nextNonce(alice.address);
    await expect(client.send(alice, sdk.actorCallRequest(predicted, { handler: 'no_such_handler', payload: new Uint8Array() }))).rejects.toBeInstanceOf(sdk.SimulationFailedError);
    expect(await client.nextNonce(alice.address)).toBe(nonce);
    const got = await client.readActor(predicted, 'get');
    expect(got.status).toBe('success');
    expect(sdk.fromBase64(got.result)).toEqual(Uint8Array.of(2, 0, 0, 0, 0, 0, 0, 0));

    const slot = sdk.verifyStorage(await client.proofStorage(predicted, sdk.utf8('count')), identity, predicted, sdk.utf8('count'));
    expect(slot.value).toEqual(Uint8Array.of(2, 0, 0, 0, 0, 0, 0, 0));
    const record = sdk.verifyActor(await client.proofActor(predicted), identity, predicted);
    expect(record.value).not.toBeNull();
    const entries = [];
    for await (const entry of client.paginateCursor((page) => client.actorStorage(predicted, page), 1)) entries.push(entry);
    expect(entries.map((e) => [e.key, sdk.toHex(sdk.fromBase64(e.value))])).toEqual([[sdk.toHex(sdk.utf8('count')), '0x0200000000000000']]);
    expect((await client.actorStorageCount(predicted)).count).toBe(1);
  });

  it('proves a transaction and its receipt', async () => {
    const { hash, transaction } = await succeed(alice, sdk.transferRequest(bob.address, 1n));
    const tx = sdk.verifyTx((await client.proofTx(hash))!, identity, hash);
    expect(tx.hash).toBe(hash);
    expect(tx.tx).toEqual(transaction);
    const receipt = sdk.verifyReceipt((await client.proofReceipt(hash))!, identity, hash);
    expect(receipt.receipt.txHash).toBe(hash);
    expect(receipt.receipt.status).toBe('success');
    expect(receipt.block.height).toBe(tx.block.height);
    const requests: sdk.ProofRequest[] = [{ kind: 'account', address: bob.address }, { kind: 'tx', tx_hash: hash }];
    const multi = sdk.verifyMulti(await client.proofMulti(requests), identity, requests);
    expect(multi.map((m) => (m instanceof VerifyError ? m.kind : m.kind))).toEqual(['account', 'tx']);
  });

  it('registers a runner and signs the node-built heartbeat (signed flow)', async () => {
    const runner = Wallet.generate();
    await succeed(alice, sdk.transferRequest(runner.address, 10n * sdk.BASE_UNITS_PER_DRV));
    await succeed(runner, sdk.systemCallRequest(sdk.runners.register(1_000n, { jobTypes: ['echo'], maxConcurrentJobs: 1 }), sdk.BASE_UNITS_PER_DRV));
    const registered = await client.runner(runner.address);
    expect(registered?.stake).toBe(sdk.BASE_UNITS_PER_DRV);
    const before = registered!.last_heartbeat_height;

    const payload = await client.heartbeatPayload(runner.address);
    // A payload for another call is refused before anything is signed.
    expect(() => sdk.signFlowPayload(payload, sdk.runners.deregister(), runner)).toThrow();
    const posted = await client.postHeartbeat(runner.address, sdk.signFlowPayload(payload, sdk.heartbeatCall(), runner));
    expect(posted.accepted).toBe(1);
    await client.waitForReceipt(posted.results[0]!.hash, { timeoutMs: 30_000 });
    expect((await client.runner(runner.address))!.last_heartbeat_height).toBeGreaterThan(before);
    const active = [];
    for await (const r of client.paginate((page) => client.activeRunners(page), (p) => p.runners, 10)) active.push(r.address);
    expect(active).toContain(runner.address);
  });

  it('authenticates a RAS session with a delegation token and signed requests', async () => {
    const signer = sdk.RasSigner.issue(alice, await client.chainId());
    const me = await client.rasMe(signer);
    expect(me.wallet).toBe(alice.address);
    expect(me.session_key).toBe(sdk.toHex(signer.sessionPublicKey));
    expect((await client.rasVolumes(signer)).volumes).toEqual([]);
    // A session of another wallet's token, signed by a key it does not delegate, is refused.
    const forged = new sdk.RasSigner(signer.token, Wallet.generate());
    await expect(client.rasMe(forged)).rejects.toBeInstanceOf(DroverApiError);
  });

  it('answers refusals as typed errors', async () => {
    const poor = Wallet.generate();
    const refused = client.send(poor, sdk.transferRequest(bob.address, 1n));
    await expect(refused).rejects.toBeInstanceOf(DroverApiError);
    await expect(client.readActor(bob.address, 'get')).rejects.toMatchObject({ status: 404 });
  });

  it('lists history, blocks and events of what happened', async () => {
    expect((await client.indexed()).first_height).toBe(1);
    // Bob only ever received, from Alice; newest first, a page at a time.
    const first = await client.history(bob.address, { limit: 1 });
    expect(first.items[0]).toMatchObject({ direction: 'received', from: alice.address, received: ['transfer'] });
    expect(typeof first.items[0]!.value_received).toBe('bigint');
    const rest = await client.history(bob.address, { cursor: first.next_cursor!, limit: 50 });
    expect(rest.items[0]!.block_height).toBeLessThanOrEqual(first.items[0]!.block_height);
    const blocks = await client.blocks({ limit: 2 });
    expect(blocks.items[0]!.height).toBe(blocks.items[1]!.height + 1);
    // The token's events (it emits them under its id): its creation and transfer.
    const events = await client.events({ emitters: [tokenAddress] }, { limit: 100 });
    expect(events.items.length).toBeGreaterThanOrEqual(2);
    expect(events.items.every((e) => e.address === tokenAddress)).toBe(true);
  });

  it('sizes a call from its simulation, traced, and the receipt is the simulated one', async () => {
    const call: sdk.TxRequest = { to: counterActor, payload: sdk.encodeMessage({ handler: 'increment', payload: new Uint8Array() }) };
    const { request, simulation } = await client.estimate(call, alice.address, { trace: true });
    expect(simulation.status).toBe('success');
    expect(request.cyclesLimit).toBe(BigInt(simulation.suggested_cycles_limit));
    expect(simulation.trace?.call?.handler).toBe('increment');
    expect(simulation.trace?.call?.steps.some((step) => step.op === 'storage_set')).toBe(true);
    const { receipt } = await succeed(alice, request);
    expect([receipt.cycles_used, receipt.cells_used]).toEqual([simulation.cycles_used, simulation.cells_used]);
    // What the node would refuse, it refuses as `/submit` would.
    await expect(client.simulate({ from: Wallet.generate().address, to: bob.address, value: 1n })).rejects.toBeInstanceOf(DroverApiError);
  });

  it('streams a transaction\'s outcome, and events resumed after the last one', async () => {
    const sent = await client.send(alice, sdk.transferRequest(bob.address, 1n), { wait: false });
    for await (const message of client.streamTransaction(sent.hash)) {
      expect(message.event === 'receipt' && message.data.tx_hash).toBe(sent.hash);
    }
    const filter = { emitters: [tokenAddress], fromHeight: 1 };
    const received: string[] = [];
    for await (const message of client.streamEvents(filter)) {
      if (message.event !== 'event') throw new Error(`an event stream sent ${message.event}`);
      expect(message.data.address).toBe(tokenAddress);
      received.push(message.id);
      if (received.length === 2) break;
    }
    for await (const message of client.streamEvents(filter, { lastEventId: received[0] })) {
      expect(message.event === 'event' && message.id).toBe(received[1]);
      break;
    }
  });

  it('streams finalized blocks, resumes after the last one, and pages the token list', async () => {
    const from = await client.height();
    const controller = new AbortController();
    const heights: number[] = [];
    for await (const message of client.streamBlocks({ fromHeight: from, signal: controller.signal })) {
      if (message.event !== 'block') throw new Error(`a block stream sent ${message.event}`);
      expect(message.id).toBe(String(message.data.height));
      expect(typeof message.data.basefee_cycle).toBe('bigint');
      heights.push(message.data.height);
      if (heights.length === 3) controller.abort();
    }
    expect(heights).toEqual([from, from + 1, from + 2]);
    // Reconnected after the second, the stream goes on with the third.
    for await (const message of client.streamBlocks({ lastEventId: String(from + 1) })) {
      expect(message.event === 'block' && message.data.height).toBe(from + 2);
      break;
    }
    const all = [];
    for await (const token of client.paginate((page) => client.tokens(page), (p) => p.tokens, 1)) all.push(token.symbol);
    expect(all).toContain('SDK');
  });
});

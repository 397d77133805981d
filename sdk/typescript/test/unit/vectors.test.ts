// The byte-for-byte vectors: the project's transaction vectors (an independent wallet's, with the
// whitepaper's unsigned transfer) and those the Rust code writes into sdk/vectors/sdk.json
// (crates/cli/tests/sdk_vectors.rs).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';
import type { Address, Hash } from '../../src/index.js';

const repo = new URL('../../../../', import.meta.url);
const read = (path: string) => JSON.parse(readFileSync(new URL(path, repo), 'utf8'));
const txVectors = read('crates/types/tests/vectors/transactions.json');
const v = read('sdk/vectors/sdk.json');
const hex = sdk.toHex;
const big = (x: string | number) => BigInt(x);

describe('the project transaction vectors', () => {
  const wallet = sdk.Wallet.fromSecret(txVectors.private_key);
  it('derives the address of the signing key', () => {
    expect(wallet.address).toBe(txVectors.address);
  });
  for (const c of txVectors.cases) {
    it(c.name, () => {
      const i = c.inputs;
      const tx: sdk.Transaction = {
        chainId: big(i.chain_id), nonce: big(i.nonce), to: i.to, value: big(i.value),
        cyclesLimit: big(i.cycles_limit), cellsLimit: big(i.cells_limit),
        maxFeePerCycle: big(i.max_fee_per_cycle), maxFeePerCell: big(i.max_fee_per_cell),
        tipPerCycle: big(i.tip_per_cycle), tipPerCell: big(i.tip_per_cell),
        payload: sdk.fromHex(i.payload), signature: null,
      };
      expect(hex(sdk.encodeTransaction(tx))).toBe(c.unsigned_tx_cbor);
      expect(hex(sdk.signingHash(tx))).toBe(c.signing_hash);
      const signed = sdk.signTransaction(tx, wallet);
      expect(signed.signature!.yParity).toBe(c.signature.y_parity);
      expect(hex(signed.signature!.r)).toBe(c.signature.r);
      expect(hex(signed.signature!.s)).toBe(c.signature.s);
      expect(hex(sdk.flatSignature(signed.signature!))).toBe(c.signature_rsv);
      expect(hex(sdk.encodeTransaction(signed))).toBe(c.signed_tx_cbor);
      expect(sdk.transactionHash(signed)).toBe(c.tx_hash);
      expect(hex(sdk.encodeSubmission([signed]))).toBe(c.submission_cbor);
      expect(sdk.recoverSender(signed)).toBe(c.sender);
      expect(sdk.decodeTransaction(sdk.fromHex(c.signed_tx_cbor))).toEqual(signed);
      const fields = c.payload_fields;
      if (fields && 'code' in fields) {
        const deploy = { code: fields.code, salt: fields.salt, manifest: fields.manifest, init: fields.init };
        expect(hex(sdk.encodeDeploy(deploy))).toBe(i.payload);
        expect(sdk.actorAddress(c.sender, fields.salt, fields.code)).toBe(c.actor_address);
      } else if (fields) {
        expect(hex(sdk.encodeMessage(fields))).toBe(i.payload);
      }
    });
  }
});

describe('sdk.json (written by the Rust implementation)', () => {
  it('dev keys, addresses and compressed public keys', () => {
    for (const k of v.keys) {
      const w = sdk.Wallet.dev(k.index);
      expect(w.secretHex()).toBe(k.secret);
      expect(w.address).toBe(k.address);
      expect(hex(w.publicKey())).toBe(k.public_key);
    }
  });

  it('messages, deploys, upgrades and actor addresses', () => {
    for (const m of v.messages) expect(hex(sdk.encodeMessage(m))).toBe(m.encoded);
    for (const d of v.deploys) {
      const deploy = { code: d.code, manifest: d.manifest, salt: d.salt, ...(d.init ? { init: d.init } : {}) };
      expect(hex(sdk.encodeDeploy(deploy))).toBe(d.payload);
      expect(sdk.actorAddress(d.sender, d.salt, d.code)).toBe(d.actor);
    }
    const u = v.upgrade;
    expect(hex(sdk.encodeUpgrade(u))).toBe(u.payload);
    expect(hex(sdk.encodeUpgradeMessage(u))).toBe(u.message);
    expect(sdk.actorAddress(v.actor_address.sender, v.actor_address.salt, v.actor_address.code)).toBe(v.actor_address.actor);
  });

  it('every system-actor call: arguments, Message and limits', () => {
    for (const c of v.calls) {
      const call = buildCall(c.family, c.input);
      expect({ to: call.to, handler: call.handler, args: hex(call.args), payload: hex(call.payload) }, `${c.family}.${c.handler}`).toEqual({
        to: c.to, handler: c.handler, args: c.args, payload: c.payload,
      });
      expect([call.cyclesLimit, call.cellsLimit], `${c.family}.${c.handler} limits`).toEqual([big(c.cycles_limit), big(c.cells_limit)]);
    }
    expect([...sdk.CHAIN_PARAMS]).toEqual(v.chain_params);
  });

  it('token, job and volume ids', () => {
    expect(sdk.tokenId(v.ids.token.creator, v.ids.token.symbol)).toBe(v.ids.token.id);
    expect(sdk.jobId(v.ids.job.submitter, v.ids.job.seq)).toBe(v.ids.job.id);
    expect(sdk.volumeId(v.ids.volume.owner, v.ids.volume.name)).toBe(v.ids.volume.id);
  });

  it('transactions built from a context with the builder fee rules, signed', () => {
    const b = v.built;
    const ctx: sdk.TxContext = {
      chainId: big(b.context.chain_id), nonce: big(b.context.nonce),
      fees: { maxFeePerCycle: big(b.context.max_fee_per_cycle), maxFeePerCell: big(b.context.max_fee_per_cell), tipPerCycle: big(b.context.tip_per_cycle), tipPerCell: big(b.context.tip_per_cell) },
    };
    const w = sdk.Wallet.dev(b.signer);
    const check = (request: sdk.TxRequest, expected: { unsigned: string; signing_hash: string; signed: string; hash: string }) => {
      const tx = sdk.buildTransaction(request, ctx);
      expect(hex(sdk.encodeUnsigned(tx))).toBe(expected.unsigned);
      expect(hex(sdk.signingHash(tx))).toBe(expected.signing_hash);
      const signed = sdk.signTransaction(tx, w);
      expect(hex(sdk.encodeTransaction(signed))).toBe(expected.signed);
      expect(sdk.transactionHash(signed)).toBe(expected.hash);
    };
    check(sdk.transferRequest(b.transfer.to, big(b.transfer.value)), b.transfer.tx);
    check(sdk.systemCallRequest(sdk.tokens.transfer(b.token_transfer.token, b.token_transfer.to, big(b.token_transfer.amount))), b.token_transfer.tx);
    check(
      { ...sdk.deployRequest({ code: b.deploy.code, salt: b.deploy.salt }, { cyclesLimit: big(b.deploy.cycles_limit), cellsLimit: big(b.deploy.cells_limit) }), tipPerCycle: big(b.deploy.tip_per_cycle) },
      b.deploy.tx,
    );
    check(sdk.upgradeRequest(v.upgrade, { cyclesLimit: big(b.upgrade.cycles_limit), cellsLimit: big(b.upgrade.cells_limit) }), b.upgrade.tx);
  });

  it('a runner flow: the checked payload signs to the Rust signature', () => {
    const f = v.flow;
    const signed = sdk.signFlowPayload({ ...f, nonce: 7 }, sdk.heartbeatCall(), sdk.Wallet.dev(f.runner));
    expect(signed.signature).toBe(f.signature);
  });

  it('the RAS delegation token and request signatures', () => {
    const r = v.ras;
    const session = sdk.Wallet.dev(r.session);
    const token = sdk.issueToken(sdk.Wallet.dev(r.wallet), session.publicKey(), big(r.chain_id), big(r.expires_at_ms));
    expect(hex(sdk.tokenSigningHash(token))).toBe(r.signing_hash);
    expect(hex(sdk.encodeTokenBytes(token))).toBe(r.token_bytes);
    expect(sdk.encodeToken(token)).toBe(r.header);
    const signer = new sdk.RasSigner(token, session);
    for (const q of r.requests) {
      expect(hex(sdk.requestHash(q.method, q.path_and_query, q.audience, q.timestamp, q.nonce, sdk.fromHex(q.body)))).toBe(q.hash);
      const headers = signer.headers(q.audience, { method: q.method, pathAndQuery: q.path_and_query, body: sdk.fromHex(q.body) }, { timestampMs: Number(q.timestamp), nonce: sdk.fromHex(q.nonce) });
      expect(headers['X-DRFS-Signature']).toBe(q.signature);
      expect(headers['X-DRFS-Delegation']).toBe(r.header);
    }
    expect(sdk.relayAudience(sdk.Wallet.dev(1).address)).toBe(r.requests[2].audience);
  });

  it('a secret envelope seals byte for byte and opens', () => {
    const s = v.secret;
    const reader = sdk.Wallet.dev(s.reader);
    const envelope = sdk.sealSecret(s.owner, s.name, reader.publicKey(), s.plaintext, { ephemeral: sdk.Wallet.fromSecret(s.ephemeral), nonce: sdk.fromHex(s.nonce) });
    expect(hex(envelope)).toBe(s.envelope);
    expect(hex(sdk.openSecret(s.owner, s.name, reader, s.envelope))).toBe(s.plaintext);
  });

  it('receipts and accounts decode', () => {
    const r = sdk.decodeReceipt(sdk.fromHex(v.receipt.encoded));
    expect([r.txHash, r.blockHeight, r.index, r.status, r.fee.burned, r.fee.tip, r.error?.code]).toEqual([
      v.receipt.tx_hash, big(v.receipt.block_height), v.receipt.index, v.receipt.status, big(v.receipt.burned), big(v.receipt.tip), v.receipt.error_code,
    ]);
    expect(sdk.decodeAccount(sdk.fromHex(v.account.encoded))).toEqual({ nonce: big(v.account.nonce), balance: big(v.account.balance) });
  });

  it('state keys', () => {
    for (const k of v.state_keys) {
      const key = k.kind === 'account' ? sdk.accountStateKey(k.address) : k.kind === 'actor' ? sdk.actorStateKey(k.address) : sdk.storageStateKey(k.address, k.storage_key);
      expect(hex(key)).toBe(k.key);
    }
  });
});

/** Rebuilds a call of sdk.json from its input with the SDK's builders. */
function buildCall(family: string, i: Record<string, any>): sdk.SystemCall {
  const n = (x: string) => BigInt(x);
  switch (`${family}.${i.call}`) {
    case 'tokens.create':
      return sdk.tokens.create({ name: i.name, symbol: i.symbol, decimals: i.decimals, initialSupply: n(i.initial_supply), maxSupply: i.max_supply === undefined ? undefined : n(i.max_supply), mintable: i.mintable });
    case 'tokens.transfer': return sdk.tokens.transfer(i.token, i.to, n(i.amount));
    case 'tokens.approve': return sdk.tokens.approve(i.token, i.spender, n(i.amount));
    case 'tokens.transfer_from': return sdk.tokens.transferFrom(i.token, i.from, i.to, n(i.amount));
    case 'tokens.mint': return sdk.tokens.mint(i.token, i.to, n(i.amount));
    case 'tokens.burn': return sdk.tokens.burn(i.token, n(i.amount));
    case 'tokens.freeze': return sdk.tokens.freeze(i.token, i.account);
    case 'tokens.unfreeze': return sdk.tokens.unfreeze(i.token, i.account);
    case 'tokens.set_owner': return sdk.tokens.setOwner(i.token, i.owner);
    case 'tokens.balance': return sdk.tokens.balance(i.token, i.account);
    case 'runners.register': return sdk.runners.register(n(i.price_per_job), { jobTypes: i.job_types, maxConcurrentJobs: i.max_concurrent_jobs });
    case 'runners.update':
      return sdk.runners.update({
        pricePerJob: i.price_per_job === undefined ? undefined : n(i.price_per_job),
        capabilities: i.job_types ? { jobTypes: i.job_types, maxConcurrentJobs: i.max_concurrent_jobs } : undefined,
        paused: i.paused,
      });
    case 'runners.heartbeat': return sdk.runners.heartbeat();
    case 'runners.deregister': return sdk.runners.deregister();
    case 'runners.delegate': return sdk.runners.delegate(i.runner);
    case 'runners.undelegate': return sdk.runners.undelegate(i.runner, n(i.amount));
    case 'runners.withdraw': return sdk.runners.withdraw(i.runner);
    case 'jobs.submit':
      return sdk.jobs.submit({ jobType: i.job_type, input: i.input, runners: i.runners, mode: i.mode, threshold: i.threshold, maxPrice: n(i.max_price), timeoutBlocks: i.timeout_blocks, callback: i.callback });
    case 'jobs.cancel': return sdk.jobs.cancel(i.job as Hash);
    case 'jobs.submit_result': return sdk.jobs.submitResult(i.job as Hash, i.result);
    case 'governance.lock': return sdk.governance.lock();
    case 'governance.unlock': return sdk.governance.unlock(n(i.amount));
    case 'governance.propose': return sdk.governance.propose(Object.fromEntries(Object.entries(i.changes).map(([k, x]) => [k, n(x as string)])), i.description);
    case 'governance.vote': return sdk.governance.vote(i.proposal, i.support);
    case 'governance.execute': return sdk.governance.execute(i.proposal);
    case 'libraries.publish': return sdk.libraries.publish(i.name, i.code, i.manifest);
    case 'libraries.remove': return sdk.libraries.remove(i.name);
    case 'secrets.set': return sdk.secrets.set(i.name, i.envelopes.map(([reader, envelope]: [Address, string]) => ({ reader, envelope })));
    case 'secrets.grant': return sdk.secrets.grant(i.name, i.reader, i.envelope);
    case 'secrets.revoke': return sdk.secrets.revoke(i.name, i.reader);
    case 'secrets.delete': return sdk.secrets.delete(i.name);
    case 'storage.create': return sdk.storage.create({ name: i.name, relay: i.relay, public: i.public, maxSizeBytes: n(i.max_size_bytes) });
    case 'storage.resize': return sdk.storage.resize(i.volume, n(i.max_size_bytes));
    case 'storage.deposit': return sdk.storage.deposit(i.volume);
    case 'storage.delete': return sdk.storage.delete(i.volume);
    case 'storage.undelete': return sdk.storage.undelete(i.volume);
    case 'storage.commit': return sdk.storage.commit(i.volume, i.root, n(i.size_bytes));
    case 'storage.reap': return sdk.storage.reap(i.volume);
    case 'storage.drop': return sdk.storage.drop(i.volume);
    case 'storage.revoke': return sdk.storage.revoke(i.session_key);
    case 'relays.register':
    case 'relays.update': {
      const settings = { endpoint: i.endpoint, capacityBytes: n(i.capacity_bytes), pricePerByteBlock: n(i.price_per_byte_block), write: i.write, read: i.read, public: i.public };
      return i.call === 'register' ? sdk.relays.register(settings) : sdk.relays.update(settings);
    }
    case 'relays.heartbeat': return sdk.relays.heartbeat();
    case 'relays.deregister': return sdk.relays.deregister();
    case 'relays.withdraw': return sdk.relays.withdraw();
    default:
      throw new Error(`no builder for ${family}.${i.call}`);
  }
}

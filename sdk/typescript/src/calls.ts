/**
 * System-actor calls: tokens, runners and delegations, jobs, governance, libraries, secrets,
 * storage volumes and relays.
 *
 * Each call is a Message `{"handler", "payload"}` to its system actor, whose payload is the
 * handler's canonical argument map (text keys; `u128` amounts as unsigned integers, tag 2 above
 * 2^64−1; addresses as `bytes(20)`; optional keys left out), exactly as
 * `crates/types/src/{token,runner,job,governance,library,secrets,storage}.rs` write them.
 *
 * Every builder also gives the limits that cover the call, computed like the Rust
 * `TxBuilder::{token,registry,job,governance,library,secrets,storage,relay}`: the intrinsic cost of
 * a message (21,000 cycles plus one cycle and one cell per payload byte) plus the handler's
 * `cost()` or `max_cost()`. The constants below are those of the Rust crates; the shared vectors
 * (`sdk/vectors/sdk.json`) check every call's bytes and limits against them.
 */
import { type Address, type BytesLike, type Hash, addressBytes, bytesOf, concat, fixedBytes, hashBytes, toHex, uintBE, utf8 } from './bytes.js';
import { encodeCanonical, type CborValue } from './cbor.js';
import { keccak256 } from './keys.js';
import { type Manifest, SYSTEM, encodeMessage, manifestIds, manifestValue } from './payload.js';

/** Cycles of a plain transfer and the least any transaction costs. */
export const TRANSFER_CYCLES = 21_000n;
/** Cycles of a listing change (a holder's tokens, a delegator's delegations, ...). */
export const LISTING_CYCLES = 6_400n;
/** Cells of a listing change. */
export const LISTING_CELLS = 160n;
/** Cells budget of a deferred entry (timer, delivery, job callback). */
export const SYSTEM_RUN_CELLS_LIMIT = 16_384n;

/** A system-actor call, ready to become a transaction (add a value where the call takes one). */
export interface SystemCall {
  /** The system actor. */
  to: Address;
  /** The handler. */
  handler: string;
  /** The canonical argument map. */
  args: Uint8Array;
  /** The transaction payload: the Message `{handler, payload: args}`. */
  payload: Uint8Array;
  /** Cycles that cover the call: intrinsic cost plus the handler's (max) cost. */
  cyclesLimit: bigint;
  /** Cells that cover the call. */
  cellsLimit: bigint;
  /** Whether the handler accepts a value (a stake, an escrow, a deposit). */
  takesValue: boolean;
}

type Args = Record<string, CborValue | undefined>;

function encodeArgs(args: Args): Uint8Array {
  const present: Record<string, CborValue> = {};
  for (const [key, value] of Object.entries(args)) if (value !== undefined) present[key] = value;
  return encodeCanonical(present);
}

function call(to: Address, handler: string, args: Args, cost: (payloadBytes: bigint) => [bigint, bigint], takesValue: boolean): SystemCall {
  const encoded = encodeArgs(args);
  const payload = encodeMessage({ handler, payload: encoded });
  const bytes = BigInt(payload.length);
  const [cycles, cells] = cost(bytes);
  return {
    to,
    handler,
    args: encoded,
    payload,
    cyclesLimit: TRANSFER_CYCLES + bytes + cycles,
    cellsLimit: bytes + cells,
    takesValue,
  };
}

const big = (v: bigint | number): bigint => BigInt(v);
const addr = (a: Address): Uint8Array => addressBytes(a);
const byteLength = (text: string): bigint => BigInt(utf8(text).length);

// ---------------------------------------------------------------------------------------------
// Tokens (`0x…0c`, docs/tokens.md)

/** `last20(keccak256(0x0c ‖ creator ‖ symbol))`: the id of the token `creator` creates with `symbol`. */
export function tokenId(creator: Address, symbol: string): Address {
  return toHex(keccak256(concat(Uint8Array.of(0x0c), addr(creator), utf8(symbol))).subarray(12)) as Address;
}

const TOKEN_ENTRY_CELLS = 64n;
const tokenListings = (n: bigint): [bigint, bigint] => [n * LISTING_CYCLES, n * LISTING_CELLS];

/** A token's metadata as `create` takes it. */
export interface NewToken {
  name: string;
  symbol: string;
  decimals: number | bigint;
  initialSupply: bigint;
  maxSupply?: bigint;
  mintable: boolean;
}

/** Calls of the tokens actor. */
export const tokens = {
  create(token: NewToken): SystemCall {
    const [lc, lk] = tokenListings(1n);
    const cells = 160n + byteLength(token.name) + byteLength(token.symbol) + TOKEN_ENTRY_CELLS;
    return call(
      SYSTEM.tokens,
      'create',
      {
        name: token.name,
        symbol: token.symbol,
        decimals: big(token.decimals),
        initial_supply: token.initialSupply,
        max_supply: token.maxSupply,
        mintable: token.mintable,
      },
      () => [20_000n + lc, cells + lk],
      false,
    );
  },
  transfer(token: Address, to: Address, amount: bigint): SystemCall {
    const [lc, lk] = tokenListings(2n);
    return call(SYSTEM.tokens, 'transfer', { token: addr(token), to: addr(to), amount }, () => [4_000n + lc, 2n * TOKEN_ENTRY_CELLS + lk], false);
  },
  approve(token: Address, spender: Address, amount: bigint): SystemCall {
    return call(SYSTEM.tokens, 'approve', { token: addr(token), spender: addr(spender), amount }, () => [2_000n, TOKEN_ENTRY_CELLS], false);
  },
  transferFrom(token: Address, from: Address, to: Address, amount: bigint): SystemCall {
    const [lc, lk] = tokenListings(2n);
    return call(
      SYSTEM.tokens,
      'transfer_from',
      { token: addr(token), from: addr(from), to: addr(to), amount },
      () => [5_000n + lc, 3n * TOKEN_ENTRY_CELLS + lk],
      false,
    );
  },
  mint(token: Address, to: Address, amount: bigint): SystemCall {
    const [lc, lk] = tokenListings(1n);
    return call(SYSTEM.tokens, 'mint', { token: addr(token), to: addr(to), amount }, () => [3_000n + lc, TOKEN_ENTRY_CELLS + lk], false);
  },
  burn(token: Address, amount: bigint): SystemCall {
    const [lc, lk] = tokenListings(1n);
    return call(SYSTEM.tokens, 'burn', { token: addr(token), amount }, () => [3_000n + lc, TOKEN_ENTRY_CELLS + lk], false);
  },
  freeze(token: Address, account: Address): SystemCall {
    return call(SYSTEM.tokens, 'freeze', { token: addr(token), account: addr(account) }, () => [2_000n, TOKEN_ENTRY_CELLS], false);
  },
  unfreeze(token: Address, account: Address): SystemCall {
    return call(SYSTEM.tokens, 'unfreeze', { token: addr(token), account: addr(account) }, () => [2_000n, TOKEN_ENTRY_CELLS], false);
  },
  setOwner(token: Address, owner: Address): SystemCall {
    return call(SYSTEM.tokens, 'set_owner', { token: addr(token), owner: addr(owner) }, () => [2_000n, TOKEN_ENTRY_CELLS], false);
  },
  balance(token: Address, account: Address): SystemCall {
    return call(SYSTEM.tokens, 'balance', { token: addr(token), account: addr(account) }, () => [1_000n, 0n], false);
  },
};

// ---------------------------------------------------------------------------------------------
// Runner registry (`0x…01`, docs/runners.md)

const MAX_JOB_TYPES = 16n;
const INDEX_WALK_CYCLES = 40_000n;
const INDEX_WALK_CELLS = 3_072n;
const RUNNER_RECORD_CELLS = 256n;
const DELEGATION_CELLS = 128n;
const CHANGE_CYCLES = 5_000n;

/** What a runner runs. */
export interface Capabilities {
  jobTypes: string[];
  maxConcurrentJobs: number | bigint;
}

const capabilitiesArgs = (c: Capabilities): CborValue => ({ job_types: c.jobTypes, max_concurrent_jobs: big(c.maxConcurrentJobs) });
const jobTypeBytes = (c: Capabilities): bigint => c.jobTypes.reduce((n, t) => n + byteLength(t), 0n);
const walks = (cost: [bigint, bigint], n: bigint): [bigint, bigint] => [cost[0] + n * INDEX_WALK_CYCLES, cost[1] + n * INDEX_WALK_CELLS];

/** Calls of the runner registry (the value of `register`, `update` and `delegate` is the stake or delegation). */
export const runners = {
  register(pricePerJob: bigint, capabilities: Capabilities): SystemCall {
    return call(
      SYSTEM.runnerRegistry,
      'register',
      { rate_card: { price_per_job: pricePerJob }, capabilities: capabilitiesArgs(capabilities) },
      () => walks([20_000n, RUNNER_RECORD_CELLS + jobTypeBytes(capabilities)], BigInt(capabilities.jobTypes.length)),
      true,
    );
  },
  update(change: { pricePerJob?: bigint; capabilities?: Capabilities; paused?: boolean }): SystemCall {
    const types = change.capabilities ? BigInt(change.capabilities.jobTypes.length) : MAX_JOB_TYPES;
    return call(
      SYSTEM.runnerRegistry,
      'update',
      {
        rate_card: change.pricePerJob === undefined ? undefined : { price_per_job: change.pricePerJob },
        capabilities: change.capabilities ? capabilitiesArgs(change.capabilities) : undefined,
        paused: change.paused,
      },
      () => walks([CHANGE_CYCLES, RUNNER_RECORD_CELLS + (change.capabilities ? jobTypeBytes(change.capabilities) : 0n)], 2n * MAX_JOB_TYPES + types),
      true,
    );
  },
  heartbeat(): SystemCall {
    return call(SYSTEM.runnerRegistry, 'heartbeat', {}, () => walks([2_000n, 0n], MAX_JOB_TYPES), false);
  },
  deregister(): SystemCall {
    return call(SYSTEM.runnerRegistry, 'deregister', {}, () => walks([CHANGE_CYCLES, 0n], 2n * MAX_JOB_TYPES), false);
  },
  delegate(runner: Address): SystemCall {
    return call(
      SYSTEM.runnerRegistry,
      'delegate',
      { runner: addr(runner) },
      () => walks([CHANGE_CYCLES + LISTING_CYCLES, DELEGATION_CELLS + LISTING_CELLS], MAX_JOB_TYPES),
      true,
    );
  },
  undelegate(runner: Address, amount: bigint): SystemCall {
    return call(SYSTEM.runnerRegistry, 'undelegate', { runner: addr(runner), amount }, () => walks([CHANGE_CYCLES, DELEGATION_CELLS], MAX_JOB_TYPES), false);
  },
  withdraw(runner: Address): SystemCall {
    return call(SYSTEM.runnerRegistry, 'withdraw', { runner: addr(runner) }, () => [CHANGE_CYCLES + LISTING_CYCLES, DELEGATION_CELLS + LISTING_CELLS], false);
  },
};

// ---------------------------------------------------------------------------------------------
// Job dispatcher (`0x…02`, docs/runners.md)

const MAX_RUNNERS_PER_JOB = 16n;
const MAX_JOB_RESULT_BYTES = 16n * 1024n;
/** Most cycles one assignment attempt of a job asking `runners` can use (`job::attempt_cycles`). */
const attemptCycles = (runners: bigint): bigint => 16_000n + runners * (4n * 18_000n + 2n * INDEX_WALK_CYCLES);

/** How a job's results become its verdict. */
export type VerificationMode = 'none' | 'majority' | 'unanimous';

/** A job as `submit` takes it. */
export interface JobSpec {
  jobType: string;
  input: BytesLike;
  runners: number | bigint;
  mode: VerificationMode;
  /** Identical results that decide; defaults to 1, `runners / 2 + 1` or `runners` by mode. */
  threshold?: number | bigint;
  maxPrice: bigint;
  timeoutBlocks: number | bigint;
  /** For a submitting actor: the handler that receives the outcome and the cycles it may use. */
  callback?: { handler: string; cycles: number | bigint };
}

function defaultThreshold(spec: JobSpec): bigint {
  if (spec.threshold !== undefined) return big(spec.threshold);
  const n = big(spec.runners);
  return spec.mode === 'none' ? 1n : spec.mode === 'majority' ? n / 2n + 1n : n;
}

/** `keccak256(submitter ‖ seq as 8 bytes BE)`: the id of `submitter`'s job number `seq`. */
export function jobId(submitter: Address, seq: bigint | number): Hash {
  return toHex(keccak256(concat(addr(submitter), uintBE(seq, 8)))) as Hash;
}

/**
 * The least escrow a `submit` carries: `runners × max_price` plus the callback's budget at the
 * given basefees (`callback.cycles × basefee_cycle + 16,384 × basefee_cell`).
 */
export function jobEscrow(spec: JobSpec, basefees: { cycle: bigint; cell: bigint }): bigint {
  const callback = spec.callback ? big(spec.callback.cycles) * basefees.cycle + SYSTEM_RUN_CELLS_LIMIT * basefees.cell : 0n;
  return big(spec.runners) * spec.maxPrice + callback;
}

/** Calls of the job dispatcher (the value of `submit` is the escrow). */
export const jobs = {
  submit(spec: JobSpec): SystemCall {
    const input = bytesOf(spec.input);
    const inputLength = BigInt(input.length);
    const runnerCount = big(spec.runners);
    return call(
      SYSTEM.jobDispatcher,
      'submit',
      {
        job_type: spec.jobType,
        input,
        runners: runnerCount,
        verification: { mode: spec.mode, threshold: defaultThreshold(spec) },
        max_price: spec.maxPrice,
        timeout_blocks: big(spec.timeoutBlocks),
        callback: spec.callback ? { handler: spec.callback.handler, cycles: big(spec.callback.cycles) } : undefined,
      },
      () => [
        60_000n + 4n * inputLength + attemptCycles(runnerCount),
        512n + inputLength + runnerCount * 2n * INDEX_WALK_CELLS,
      ],
      true,
    );
  },
  cancel(job: Hash): SystemCall {
    return call(SYSTEM.jobDispatcher, 'cancel', { job: hashBytes(job) }, () => [40_000n, 0n], false);
  },
  submitResult(job: Hash, result: BytesLike): SystemCall {
    const bytes = bytesOf(result);
    return call(
      SYSTEM.jobDispatcher,
      'submit_result',
      { job: hashBytes(job), result: bytes },
      () => [60_000n + MAX_RUNNERS_PER_JOB * MAX_JOB_RESULT_BYTES * 4n, 128n + BigInt(bytes.length)],
      false,
    );
  },
};

// ---------------------------------------------------------------------------------------------
// Governance (`0x…09`, docs/governance.md)

/** Every chain parameter's name, in canonical order (`drover_types::governance::PARAMS`). */
export const CHAIN_PARAMS = [
  'target_cycles', 'target_cells', 'min_basefee_cycle', 'min_basefee_cell', 'min_runner_stake',
  'unbonding_blocks', 'heartbeat_gap_blocks', 'min_selection_reputation', 'reputation_gain',
  'reputation_loss_wrong', 'reputation_loss_silent', 'max_timer_fires_per_block',
  'max_deliveries_per_block', 'mailbox_capacity_bytes', 'voting_period_blocks', 'quorum_percent',
  'min_quorum_weight', 'approval_percent', 'timelock_blocks', 'execution_window_blocks',
  'min_relay_stake', 'volume_creation_fee', 'volume_grace_blocks', 'proposal_deposit',
  'max_code_bytes', 'max_storage_value_bytes', 'max_pending_timers_per_actor',
  'max_runners_per_job', 'max_job_timeout_blocks', 'max_job_input_bytes', 'max_callback_cycles',
  'max_attached_cycles',
] as const;

const ENTRY_OVERHEAD_BYTES = 20n;
const MAX_DESCRIPTION_BYTES = 1_024n;
const MAX_CHANGES = 16n;
const maxProposalRecordBytes = (): bigint => {
  const longest = BigInt(Math.max(...CHAIN_PARAMS.map((n) => n.length)));
  return 256n + MAX_DESCRIPTION_BYTES + MAX_CHANGES * (longest + ENTRY_OVERHEAD_BYTES);
};
const maxParamsRecordBytes = (): bigint => CHAIN_PARAMS.reduce((n, name) => n + BigInt(name.length) + ENTRY_OVERHEAD_BYTES, 0n) + 9n;

/** Calls of the governance actor (the value of `lock` is the weight, of `propose` the deposit). */
export const governance = {
  lock(): SystemCall {
    return call(SYSTEM.governance, 'lock', {}, () => [5_000n, 64n], true);
  },
  unlock(amount: bigint): SystemCall {
    return call(SYSTEM.governance, 'unlock', { amount }, () => [5_000n, 64n], false);
  },
  propose(changes: Record<string, bigint>, description: string): SystemCall {
    const names = Object.keys(changes).reduce((n, name) => n + byteLength(name) + 17n, 0n);
    return call(SYSTEM.governance, 'propose', { changes, description }, () => [20_000n, 256n + byteLength(description) + names], true);
  },
  vote(proposal: bigint | number, support: boolean): SystemCall {
    return call(SYSTEM.governance, 'vote', { proposal: big(proposal), support }, () => [8_000n, 128n + maxProposalRecordBytes()], false);
  },
  execute(proposal: bigint | number): SystemCall {
    return call(SYSTEM.governance, 'execute', { proposal: big(proposal) }, () => [20_000n, 64n + maxProposalRecordBytes() + maxParamsRecordBytes()], false);
  },
};

// ---------------------------------------------------------------------------------------------
// Libraries (`0x…0d`, docs/libraries.md)

/** Calls of the library actor. */
export const libraries = {
  publish(name: string, code: BytesLike, manifest: Manifest): SystemCall {
    const bytes = bytesOf(code);
    const codeLength = BigInt(bytes.length);
    const manifestBytes = manifestIds(manifest).reduce((n, m) => n + byteLength(m) + 1n, 0n);
    return call(
      SYSTEM.libraries,
      'publish',
      { name, code: bytes, manifest: manifestValue(manifest) },
      () => [20_000n + LISTING_CYCLES + 16n * codeLength, 256n + LISTING_CELLS + codeLength + manifestBytes],
      false,
    );
  },
  remove(name: string): SystemCall {
    return call(SYSTEM.libraries, 'remove', { name }, () => [5_000n, 0n], false);
  },
};

// ---------------------------------------------------------------------------------------------
// Secrets (`0x…04`, docs/secrets.md)

const MAX_READERS = 32n;
const SET_CYCLES = 10_000n;
const ENVELOPE_CYCLES = 2_000n;
const SECRET_RECORD_CELLS = 160n;

/** Calls of the secrets actor (envelopes come from `sealSecret`). */
export const secrets = {
  set(name: string, envelopes: { reader: Address; envelope: BytesLike }[]): SystemCall {
    const map = new Map<CborValue, CborValue>(envelopes.map((e) => [addr(e.reader), bytesOf(e.envelope)]));
    if (map.size !== envelopes.length) throw new Error('each reader is listed once');
    const stored = envelopes.reduce((n, e) => n + BigInt(bytesOf(e.envelope).length) + 64n, 0n);
    const count = BigInt(envelopes.length);
    return call(
      SYSTEM.secrets,
      'set',
      { name, envelopes: map },
      () => [SET_CYCLES + ENVELOPE_CYCLES * (count + MAX_READERS) + LISTING_CYCLES, SECRET_RECORD_CELLS + 20n * count + stored + LISTING_CELLS],
      false,
    );
  },
  grant(name: string, reader: Address, envelope: BytesLike): SystemCall {
    const bytes = bytesOf(envelope);
    return call(SYSTEM.secrets, 'grant', { name, reader: addr(reader), envelope: bytes }, () => [SET_CYCLES + ENVELOPE_CYCLES, SECRET_RECORD_CELLS + 84n + BigInt(bytes.length)], false);
  },
  revoke(name: string, reader: Address): SystemCall {
    return call(SYSTEM.secrets, 'revoke', { name, reader: addr(reader) }, () => [SET_CYCLES + ENVELOPE_CYCLES + LISTING_CYCLES, LISTING_CELLS], false);
  },
  delete(name: string): SystemCall {
    return call(SYSTEM.secrets, 'delete', { name }, () => [SET_CYCLES + ENVELOPE_CYCLES * MAX_READERS + LISTING_CYCLES, LISTING_CELLS], false);
  },
};

// ---------------------------------------------------------------------------------------------
// Storage manager (`0x…0a`) and relay registry (`0x…0b`), docs/storage.md

const VOLUME_CALL_CYCLES = 10_000n;

/** `keccak256(owner ‖ name)`: the id of `owner`'s volume `name`. */
export function volumeId(owner: Address, name: string): Hash {
  return toHex(keccak256(concat(addr(owner), utf8(name)))) as Hash;
}

/** Calls of the storage manager (the value of `create` is the fee plus the first deposit, of `deposit` the top-up). */
export const storage = {
  create(volume: { name: string; relay: Address; public: boolean; maxSizeBytes: bigint | number }): SystemCall {
    return call(
      SYSTEM.storageManager,
      'create',
      { name: volume.name, relay: addr(volume.relay), public: volume.public, max_size_bytes: big(volume.maxSizeBytes) },
      () => [VOLUME_CALL_CYCLES + LISTING_CYCLES, 256n + LISTING_CELLS + byteLength(volume.name)],
      true,
    );
  },
  resize(volume: Hash, maxSizeBytes: bigint | number): SystemCall {
    return call(SYSTEM.storageManager, 'resize', { volume: hashBytes(volume), max_size_bytes: big(maxSizeBytes) }, () => [VOLUME_CALL_CYCLES, 0n], false);
  },
  deposit(volume: Hash): SystemCall {
    return call(SYSTEM.storageManager, 'deposit', { volume: hashBytes(volume) }, () => [VOLUME_CALL_CYCLES, 0n], true);
  },
  delete(volume: Hash): SystemCall {
    return call(SYSTEM.storageManager, 'delete', { volume: hashBytes(volume) }, () => [VOLUME_CALL_CYCLES, 0n], false);
  },
  undelete(volume: Hash): SystemCall {
    return call(SYSTEM.storageManager, 'undelete', { volume: hashBytes(volume) }, () => [VOLUME_CALL_CYCLES, 0n], false);
  },
  commit(volume: Hash, root: Hash, sizeBytes: bigint | number): SystemCall {
    return call(
      SYSTEM.storageManager,
      'commit',
      { volume: hashBytes(volume), root: hashBytes(root), size_bytes: big(sizeBytes) },
      () => [VOLUME_CALL_CYCLES, 0n],
      false,
    );
  },
  reap(volume: Hash): SystemCall {
    return call(SYSTEM.storageManager, 'reap', { volume: hashBytes(volume) }, () => [VOLUME_CALL_CYCLES + LISTING_CYCLES, LISTING_CELLS], false);
  },
  drop(volume: Hash): SystemCall {
    return call(SYSTEM.storageManager, 'drop', { volume: hashBytes(volume) }, () => [VOLUME_CALL_CYCLES, 0n], false);
  },
  revoke(sessionKey: BytesLike): SystemCall {
    return call(SYSTEM.storageManager, 'revoke', { session_key: fixedBytes(sessionKey, 33, 'a session key') }, () => [VOLUME_CALL_CYCLES, 96n], false);
  },
};

/** A relay's settings, as `register` and `update` take them. */
export interface RelaySettings {
  endpoint: string;
  capacityBytes: bigint | number;
  pricePerByteBlock: bigint;
  write: boolean;
  read: boolean;
  public: boolean;
}

const relayArgs = (s: RelaySettings): Args => ({
  endpoint: s.endpoint,
  capacity_bytes: big(s.capacityBytes),
  price_per_byte_block: s.pricePerByteBlock,
  write: s.write,
  read: s.read,
  public: s.public,
});
const RELAY_LISTINGS: [bigint, bigint] = [2n * LISTING_CYCLES, 2n * LISTING_CELLS];

/** Calls of the relay registry (the value of `register` and `update` is stake). */
export const relays = {
  register(settings: RelaySettings): SystemCall {
    return call(
      SYSTEM.relayRegistry,
      'register',
      relayArgs(settings),
      () => [20_000n + RELAY_LISTINGS[0], 192n + 64n + byteLength(settings.endpoint) + RELAY_LISTINGS[1]],
      true,
    );
  },
  update(settings: RelaySettings): SystemCall {
    return call(
      SYSTEM.relayRegistry,
      'update',
      relayArgs(settings),
      () => [5_000n + RELAY_LISTINGS[0], 192n + byteLength(settings.endpoint) + RELAY_LISTINGS[1]],
      true,
    );
  },
  heartbeat(): SystemCall {
    return call(SYSTEM.relayRegistry, 'heartbeat', {}, () => [5_000n, 0n], false);
  },
  deregister(): SystemCall {
    return call(SYSTEM.relayRegistry, 'deregister', {}, () => [5_000n + RELAY_LISTINGS[0], RELAY_LISTINGS[1]], false);
  },
  withdraw(): SystemCall {
    return call(SYSTEM.relayRegistry, 'withdraw', {}, () => [5_000n, 0n], false);
  },
};

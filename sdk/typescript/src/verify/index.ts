/**
 * Light-client verification of the node's proofs, trusting nothing but the network's group public
 * key (the genesis `identity`), as `drover_client::verify` and `drover verify` do
 * (`docs/proofs.md`, "Verification"). Each step trusts only what the previous one established:
 *
 * 1. **certificate**: the finalization decodes and its threshold signature verifies;
 * 2. **block**: SHA-256 of the served header is the certified digest, and the header decodes;
 * 3. **root**: the response's height, block hash and root equal the certified header's;
 * 4. **request**: the proof is about the record the caller asked for: every verifier takes the
 *    request (the address, storage key or transaction hash, or a `/proof/multi` request item), the
 *    state key is derived here from it (never taken from the response), and a valid proof of
 *    another record (another account, key or transaction a dishonest node substitutes) is refused
 *    (`WrongKey`, `WrongTx`);
 * 5. **proof**: the QMDB proof verifies against the header's `state_root` for that key, or the
 *    binary Merkle proof against `transactions_root` / `receipts_root`;
 * 6. **value**: the proven bytes decode as the promised record.
 *
 * A multi-proof is bound the same way, item by item, to the list of requests it answers.
 *
 * A refusal is a {@link VerifyError} whose `kind` names the step (the same kinds the Rust
 * verifier's `VerifyError` variants have, which the shared vectors check).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { type Address, type BytesLike, type Hash, addressBytes, bytesOf, concat, equalBytes, fromBase64, hashBytes, normalizeAddress, toHex } from '../bytes.js';
import { decodeCanonical, toBigInt, toBytes, toText } from '../cbor.js';
import type { Schemas } from '../client.js';
import { keccak256 } from '../keys.js';
import { SYSTEM } from '../payload.js';
import { type Transaction, decodeTransaction } from '../transaction.js';
import { decodeBmtProof, verifyBmtInclusion } from './bmt.js';
import { type BlockHeader, BlockError, CertificateError, parseIdentity, verifyCertifiedHeader } from './certificate.js';
import { StateProofError, verifyStateProof } from './qmdb.js';

export { parseIdentity } from './certificate.js';

/**
 * The `identity` of a genesis file's text (`genesis.yaml`: the network's group public key, hex),
 * checked to be a group key: what a client trusts and passes to the verifiers. Only the top-level
 * `identity:` line is read (plain or quoted hex, as the node writes it), so no YAML parser is needed.
 */
export function genesisIdentity(genesisYaml: string): string {
  const match = /^identity:[ \t]*(['"]?)([0-9a-fA-F]+)\1[ \t]*$/m.exec(genesisYaml);
  if (!match) throw new Error('the genesis file has no top-level `identity: <hex>` line');
  parseIdentity(match[2]!);
  return match[2]!;
}

/** Which check refused a proof (the Rust `VerifyError` variant). */
export type VerifyErrorKind =
  | 'Certificate'
  | 'CertificateEncoding'
  | 'WrongBlock'
  | 'MalformedBlock'
  | 'FieldMismatch'
  | 'WrongKind'
  | 'WrongKey'
  | 'WrongTx'
  | 'ProofMalformed'
  | 'ProofMismatch'
  | 'Record'
  | 'RecordMismatch'
  | 'Refused'
  | 'InvalidRequest'
  | 'Unanswered';

/** Why a proof was not accepted. */
export class VerifyError extends Error {
  constructor(
    readonly kind: VerifyErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'VerifyError';
  }
}

/** The certified block a value was proven in. */
export interface CertifiedHeader {
  height: bigint;
  hash: Hash;
  timestampMs: bigint;
  stateRoot: Hash;
}

/** A state record (or its proven absence). */
export interface VerifiedState {
  kind: 'account' | 'actor' | 'storage';
  address: Address;
  storageKey: Uint8Array | null;
  value: Uint8Array | null;
  block: CertifiedHeader;
}

/** An account (or `null`: the address holds none). */
export interface VerifiedAccount {
  address: Address;
  account: { nonce: bigint; balance: bigint } | null;
  block: CertifiedHeader;
}

/** A transaction proven in a certified block. */
export interface VerifiedTx {
  hash: Hash;
  tx: Transaction;
  index: number;
  block: CertifiedHeader;
}

/** A decoded receipt (`docs/protocol.md`, "Receipts"). */
export interface Receipt {
  txHash: Hash;
  blockHeight: bigint;
  index: number;
  from: Address;
  to: Address | null;
  status: 'success' | 'reverted' | 'failed';
  cyclesUsed: bigint;
  cellsUsed: bigint;
  fee: { burned: bigint; tip: bigint };
  events: { address: Address; topic: string; data: Uint8Array }[];
  revertReason: string | null;
  error: { code: string; message: string } | null;
}

/** A receipt proven in a certified block. */
export interface VerifiedReceipt {
  receipt: Receipt;
  block: CertifiedHeader;
}

type StateProof = Schemas['StateProofInfo'];
type InclusionProof = Schemas['InclusionProofInfo'];
/** A `/proof/multi` request item: what a proof must be about. */
export type ProofRequest = Schemas['ProofRequest'];

/** The record a request names, parsed as the node parses it. */
type StateRequested = { kind: 'account' | 'actor'; address: Address } | { kind: 'storage'; address: Address; key: Uint8Array };
type Requested = StateRequested | { kind: 'tx' | 'receipt'; hash: Uint8Array };

function parseRequest(request: ProofRequest): Requested {
  const field = (value: string | null | undefined, name: string): string => {
    if (value === null || value === undefined) throw new VerifyError('InvalidRequest', `the request does not name a record: a \`${request.kind}\` request needs \`${name}\``);
    return value;
  };
  try {
    switch (request.kind) {
      case 'account':
      case 'actor':
        return { kind: request.kind, address: normalizeAddress(field(request.address, 'address')) };
      case 'storage':
        return { kind: 'storage', address: normalizeAddress(field(request.address, 'address')), key: bytesOf(field(request.key, 'key')) };
      case 'tx':
      case 'receipt':
        return { kind: request.kind, hash: hashBytes(field(request.tx_hash, 'tx_hash')) };
      default:
        throw new VerifyError('InvalidRequest', `the request does not name a record: unknown proof kind ${JSON.stringify(request.kind)}`);
    }
  } catch (e) {
    if (e instanceof VerifyError) throw e;
    throw new VerifyError('InvalidRequest', `the request does not name a record: ${(e as Error).message}`);
  }
}

// --- State keys (`drover_state::keys`) ---------------------------------------------------------

const spread = (n: number, ...parts: Uint8Array[]): Uint8Array => keccak256(concat(...parts)).subarray(0, n);

/** System records stored under their owner so that one owner's records are one key range. */
const OWNED_ENTRIES: [Address, number, number, number][] = [
  [SYSTEM.tokens, 0x62 /* b */, 0x06, 20],
  [SYSTEM.runnerRegistry, 0x64 /* d */, 0x07, 20],
  [SYSTEM.jobDispatcher, 0x61 /* a */, 0x08, 32],
  [SYSTEM.secrets, 0x73 /* s */, 0x0b, 32],
  [SYSTEM.libraries, 0x6c /* l */, 0x0c, 32],
  [SYSTEM.storageManager, 0x6f /* o */, 0x0a, 32],
];

/** `0x01 ‖ spread15(address) ‖ address`. */
export function accountStateKey(address: Address): Uint8Array {
  const a = addressBytes(address);
  return concat(Uint8Array.of(0x01), spread(15, a), a);
}

/** `0x02 ‖ spread14(address) ‖ 0x00 ‖ address`. */
export function actorStateKey(address: Address): Uint8Array {
  const a = addressBytes(address);
  return concat(Uint8Array.of(0x02), spread(14, a), Uint8Array.of(0x00), a);
}

/** The state key of an actor's storage key (`drover_state::keys::storage_key`). */
export function storageStateKey(actor: Address, userKey: BytesLike): Uint8Array {
  const a = addressBytes(actor);
  const key = bytesOf(userKey);
  const actorText = normalizeAddress(actor);
  for (const [system, tag, prefix, itemLength] of OWNED_ENTRIES) {
    if (system === actorText && key[0] === tag && key.length === 1 + itemLength + 20) {
      const owner = key.subarray(1 + itemLength);
      return concat(Uint8Array.of(prefix), spread(15, owner), owner, key.subarray(1, 1 + itemLength));
    }
  }
  return concat(Uint8Array.of(0x03), spread(7, a), spread(8, a, key), a, key);
}

// --- Records -----------------------------------------------------------------------------------

/** Decodes an account record `[nonce, balance]`. */
export function decodeAccount(bytes: Uint8Array): { nonce: bigint; balance: bigint } {
  const item = decodeCanonical(bytes);
  if (!Array.isArray(item) || item.length !== 2) throw new Error('an account is [nonce, balance]');
  return { nonce: toBigInt(item[0], 'nonce'), balance: toBigInt(item[1], 'balance') };
}

const STATUSES = ['success', 'reverted', 'failed'] as const;

/** Decodes a receipt's canonical CBOR. */
export function decodeReceipt(bytes: Uint8Array): Receipt {
  const r = decodeCanonical(bytes);
  if (!Array.isArray(r) || r.length !== 12) throw new Error('a receipt is a 12-element array');
  const fee = r[8];
  if (!Array.isArray(fee) || fee.length !== 2) throw new Error('fee is [burned, tip]');
  if (!Array.isArray(r[9])) throw new Error('events is an array');
  const status = STATUSES[Number(toBigInt(r[5], 'status'))];
  if (!status) throw new Error('status must be 0, 1 or 2');
  const index = toBigInt(r[2], 'index');
  if (index > 0xffffffffn) throw new Error('index is a u32');
  const error = r[11];
  if (error !== null && (!Array.isArray(error) || error.length !== 2)) throw new Error('error is [code, message]');
  return {
    txHash: toHex(toBytes(r[0], 'tx_hash', 32)) as Hash,
    blockHeight: toBigInt(r[1], 'block_height'),
    index: Number(index),
    from: normalizeAddress(toBytes(r[3], 'from', 20)),
    to: r[4] === null ? null : normalizeAddress(toBytes(r[4], 'to', 20)),
    status,
    cyclesUsed: toBigInt(r[6], 'cycles_used'),
    cellsUsed: toBigInt(r[7], 'cells_used'),
    fee: { burned: toBigInt(fee[0], 'burned'), tip: toBigInt(fee[1], 'tip') },
    events: (r[9] as unknown[]).map((e) => {
      if (!Array.isArray(e) || e.length !== 3) throw new Error('an event is [address, topic, data]');
      return { address: normalizeAddress(toBytes(e[0], 'event address', 20)), topic: toText(e[1], 'topic'), data: toBytes(e[2], 'data') };
    }),
    revertReason: r[10] === null ? null : toText(r[10], 'revert_reason'),
    error: error === null ? null : { code: toText((error as unknown[])[0], 'code'), message: toText((error as unknown[])[1], 'message') },
  };
}

// --- Steps 1 to 3 ------------------------------------------------------------------------------

function certified(headerBase64: string, finalization: string, identity: Uint8Array): { header: BlockHeader; digest: Uint8Array } {
  try {
    return verifyCertifiedHeader(fromBase64(headerBase64), finalization, identity);
  } catch (e) {
    if (e instanceof CertificateError) {
      throw new VerifyError(e.message.includes('not hex') ? 'CertificateEncoding' : 'Certificate', e.message);
    }
    if (e instanceof BlockError) throw new VerifyError(e.message.includes('does not decode') ? 'MalformedBlock' : 'WrongBlock', e.message);
    throw new VerifyError('MalformedBlock', (e as Error).message);
  }
}

function same(served: string | number | bigint, certifiedValue: string | bigint, field: string): void {
  const equal = typeof certifiedValue === 'bigint' ? BigInt(served) === certifiedValue : String(served).toLowerCase() === certifiedValue;
  if (!equal) throw new VerifyError('FieldMismatch', `field \`${field}\` of the response disagrees with the certified block`);
}

function headerOf(header: BlockHeader, digest: Uint8Array): CertifiedHeader {
  return { height: header.height, hash: toHex(digest) as Hash, timestampMs: header.timestampMs, stateRoot: toHex(header.stateRoot) as Hash };
}

function identityBytes(identity: BytesLike): Uint8Array {
  return parseIdentity(identity);
}

// --- State proofs ------------------------------------------------------------------------------

/**
 * Checks a state proof against what was asked: the record of `request` (an account, actor or
 * storage request; a transaction or receipt request is a `WrongKind` refusal).
 */
export function verifyStateProofInfo(proof: StateProof, identity: BytesLike, request: ProofRequest): VerifiedState {
  const parsed = parseRequest(request);
  if ('hash' in parsed) throw new VerifyError('WrongKind', `expected a ${parsed.kind} proof, got a ${proof.kind} proof`);
  const requested: StateRequested = parsed;
  expectKind(proof.kind, requested.kind);
  const { header, digest } = certified(proof.header, proof.finalization, identityBytes(identity));
  same(proof.block_hash, toHex(digest), 'block_hash');
  same(proof.height, header.height, 'height');
  same(proof.state_root, toHex(header.stateRoot), 'state_root');
  const slot = requested.kind === 'storage' ? requested.key : null;
  const expected =
    requested.kind === 'account' ? accountStateKey(requested.address) : requested.kind === 'actor' ? actorStateKey(requested.address) : storageStateKey(requested.address, slot!);
  const proven = bytesOf(proof.key);
  if (!equalBytes(proven, expected)) {
    throw new VerifyError('WrongKey', `the proof is for key ${toHex(proven)}, not for the requested record's key ${toHex(expected)}`);
  }
  // The key is bound to the request; the labels beside it must say the same.
  if (normalizeAddress(proof.address) !== requested.address) {
    throw new VerifyError('FieldMismatch', 'field `address` of the response disagrees with the certified block');
  }
  const servedSlot = proof.storage_key === null || proof.storage_key === undefined ? null : bytesOf(proof.storage_key);
  if (servedSlot === null ? slot !== null : slot === null || !equalBytes(servedSlot, slot)) {
    throw new VerifyError('FieldMismatch', 'field `storage_key` of the response disagrees with the certified block');
  }
  const value = proof.value === null || proof.value === undefined ? null : fromBase64(proof.value);
  try {
    verifyStateProof(expected, value, fromBase64(proof.proof), header.stateRoot);
  } catch (e) {
    if (e instanceof StateProofError) throw new VerifyError(e.reason === 'malformed' ? 'ProofMalformed' : 'ProofMismatch', e.message);
    throw e;
  }
  return { kind: requested.kind, address: requested.address, storageKey: slot, value, block: headerOf(header, digest) };
}

function expectKind(actual: string, expected: string): void {
  if (actual !== expected) throw new VerifyError('WrongKind', `expected a ${expected} proof, got a ${actual} proof`);
}

/** Verifies `/proof/account/{address}` of `address` and decodes the account. */
export function verifyAccount(proof: StateProof, identity: BytesLike, address: BytesLike): VerifiedAccount {
  const state = verifyStateProofInfo(proof, identity, { kind: 'account', address: requestHex(address) });
  let account: VerifiedAccount['account'] = null;
  if (state.value) {
    try {
      account = decodeAccount(state.value);
    } catch (e) {
      throw new VerifyError('Record', `the proven record does not decode: ${(e as Error).message}`);
    }
  }
  return { address: state.address, account, block: state.block };
}

/** Verifies `/proof/actor/{address}` of `address`; the record bytes are returned as proven. */
export function verifyActor(proof: StateProof, identity: BytesLike, address: BytesLike): VerifiedState {
  return verifyStateProofInfo(proof, identity, { kind: 'actor', address: requestHex(address) });
}

/** Verifies `/proof/storage/{address}/{key}` or `/state/{actor}/{key_hex}` of the actor `address`'s storage key `key`. */
export function verifyStorage(proof: StateProof, identity: BytesLike, address: BytesLike, key: BytesLike): VerifiedState {
  return verifyStateProofInfo(proof, identity, { kind: 'storage', address: requestHex(address), key: requestHex(key) });
}

/** A request field as hex text, as a `/proof/multi` item carries it. */
function requestHex(value: BytesLike): string {
  return typeof value === 'string' ? value : toHex(value);
}

// --- Inclusion proofs --------------------------------------------------------------------------

function verifyInclusion(proof: InclusionProof, kind: 'tx' | 'receipt', leaf: Uint8Array, identity: BytesLike): { header: BlockHeader; digest: Uint8Array } {
  expectKind(proof.kind, kind);
  const { header, digest } = certified(proof.header, proof.finalization, identityBytes(identity));
  same(proof.block_hash, toHex(digest), 'block_hash');
  same(proof.height, header.height, 'height');
  const root = kind === 'tx' ? header.transactionsRoot : header.receiptsRoot;
  same(proof.root, toHex(root), 'root');
  let decoded;
  try {
    decoded = decodeBmtProof(fromBase64(proof.proof));
  } catch (e) {
    throw new VerifyError('ProofMalformed', `the proof does not decode: ${(e as Error).message}`);
  }
  if (!verifyBmtInclusion(leaf, proof.index, decoded, root)) throw new VerifyError('ProofMismatch', 'the proof does not verify against the root');
  return { header, digest };
}

/** The proof is of the transaction asked for. */
function expectTx(proof: InclusionProof, hash: BytesLike): void {
  const expected = requestedHash(hash);
  const proven = bytesOf(proof.tx_hash);
  if (!equalBytes(proven, expected)) {
    throw new VerifyError('WrongTx', `the proof is for transaction ${toHex(proven)}, not for the requested transaction ${toHex(expected)}`);
  }
}

function requestedHash(hash: BytesLike): Uint8Array {
  const requested = parseRequest({ kind: 'tx', tx_hash: requestHex(hash) });
  return (requested as { hash: Uint8Array }).hash;
}

/** Verifies `/proof/tx/{tx_hash}` of the transaction `hash` and decodes the transaction. */
export function verifyTx(proof: InclusionProof, identity: BytesLike, hash: BytesLike): VerifiedTx {
  expectTx(proof, hash);
  const encoded = fromBase64(proof.encoded);
  if (!equalBytes(keccak256(encoded), bytesOf(proof.tx_hash))) {
    throw new VerifyError('RecordMismatch', 'the transaction bytes do not hash to tx_hash');
  }
  const { header, digest } = verifyInclusion(proof, 'tx', bytesOf(proof.tx_hash), identity);
  let tx: Transaction;
  try {
    tx = decodeTransaction(encoded);
  } catch (e) {
    throw new VerifyError('Record', `the proven record does not decode: ${(e as Error).message}`);
  }
  return { hash: toHex(bytesOf(proof.tx_hash)) as Hash, tx, index: proof.index, block: headerOf(header, digest) };
}

/** Verifies `/proof/receipt/{tx_hash}` of the transaction `hash`'s receipt and decodes it. */
export function verifyReceipt(proof: InclusionProof, identity: BytesLike, hash: BytesLike): VerifiedReceipt {
  expectTx(proof, hash);
  const encoded = fromBase64(proof.encoded);
  const { header, digest } = verifyInclusion(proof, 'receipt', sha256(encoded), identity);
  let receipt: Receipt;
  try {
    receipt = decodeReceipt(encoded);
  } catch (e) {
    throw new VerifyError('Record', `the proven record does not decode: ${(e as Error).message}`);
  }
  if (receipt.txHash !== toHex(bytesOf(proof.tx_hash))) throw new VerifyError('RecordMismatch', "the receipt is another transaction's");
  if (receipt.blockHeight !== BigInt(proof.height) || receipt.index !== proof.index) {
    throw new VerifyError('RecordMismatch', 'the receipt names another position');
  }
  return { receipt, block: headerOf(header, digest) };
}

/** Any verified item. */
export type Verified =
  | { kind: 'account'; value: VerifiedAccount }
  | { kind: 'actor' | 'storage'; value: VerifiedState }
  | { kind: 'tx'; value: VerifiedTx }
  | { kind: 'receipt'; value: VerifiedReceipt };

/**
 * Verifies one proof of any kind (a `/proof/...` answer or an item of `/proof/multi`) against the
 * request it answers; the request, not the proof, decides which record is expected.
 */
export function verifyProof(proof: StateProof | InclusionProof, identity: BytesLike, request: ProofRequest): Verified {
  const requested = parseRequest(request);
  switch (requested.kind) {
    case 'account':
      return { kind: 'account', value: verifyAccount(proof as StateProof, identity, requested.address) };
    case 'actor':
    case 'storage':
      return { kind: requested.kind, value: verifyStateProofInfo(proof as StateProof, identity, request) };
  }
  // A state proof has no transaction to compare: refused by kind, as the Rust verifier does.
  if (proof.kind !== 'tx' && proof.kind !== 'receipt') expectKind(proof.kind, requested.kind);
  const inclusion = proof as InclusionProof;
  return requested.kind === 'tx'
    ? { kind: 'tx', value: verifyTx(inclusion, identity, requested.hash) }
    : { kind: 'receipt', value: verifyReceipt(inclusion, identity, requested.hash) };
}

/**
 * Verifies a `/proof/multi` answer against the requests it answers (the list sent to the node):
 * one result per request, in order, each bound to its request. An item the node refused is a
 * `Refused` error, one it left out `Unanswered`, a proof answering a request that names no record
 * `InvalidRequest`; items beyond the requests answer nothing asked and are ignored.
 */
export function verifyMulti(response: Schemas['MultiProofResponse'], identity: BytesLike, requests: readonly ProofRequest[]): (Verified | VerifyError)[] {
  return requests.map((request, i) => {
    if (i >= response.results.length) {
      return new VerifyError('Unanswered', `the node answered ${response.results.length} of ${requests.length} requests, not this one`);
    }
    const record = response.results[i] as Record<string, unknown>;
    if (!('kind' in record) && 'code' in record) {
      return new VerifyError('Refused', `the node answered this item with an error: ${String(record.error)} (code ${String(record.code)}): ${String(record.message)}`);
    }
    try {
      return verifyProof(record as unknown as StateProof | InclusionProof, identity, request);
    } catch (e) {
      if (e instanceof VerifyError) return e;
      throw e;
    }
  });
}

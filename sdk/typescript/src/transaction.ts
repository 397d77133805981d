/**
 * The transaction (`docs/protocol.md`, "Transaction", "Submission envelope"): the 13-element
 * canonical CBOR array of the Cowboy whitepaper, its signing hash and hash, signing, and the
 * `{"Transactions": [...]}` body of `POST /submit`.
 *
 * ```text
 * [chain_id, nonce, to | null, value, cycles_limit, cells_limit, max_fee_per_cycle,
 *  max_fee_per_cell, tip_per_cycle, tip_per_cell, access_list = null, payload,
 *  [y_parity, r, s] | null]
 * signing hash     = keccak256(cbor(transaction with signature = null))
 * transaction hash = keccak256(cbor(signed transaction))
 * ```
 *
 * Amounts and limits are `bigint` throughout, so `u64` and `u128` values never lose precision.
 */
import { type Address, type Hash, addressBytes, normalizeAddress, toHex } from './bytes.js';
import { decodeCanonical, encodeCanonical, toBigInt, toBytes, type CborValue } from './cbor.js';
import { type Signature, type Wallet, keccak256, recoverAddress } from './keys.js';

/** Largest `u64`. */
export const U64_MAX = (1n << 64n) - 1n;
/** Largest `u128`. */
export const U128_MAX = (1n << 128n) - 1n;
/** Most transactions one submission may carry. */
export const SUBMISSION_MAX_TRANSACTIONS = 50;
/** Largest submission body, in bytes. */
export const SUBMISSION_MAX_BYTES = 524_288;

/** A transaction; `signature` is `null` while unsigned. */
export interface Transaction {
  chainId: bigint;
  nonce: bigint;
  /** The recipient, an actor, a system actor, or `null` to deploy an actor. */
  to: Address | null;
  value: bigint;
  cyclesLimit: bigint;
  cellsLimit: bigint;
  maxFeePerCycle: bigint;
  maxFeePerCell: bigint;
  tipPerCycle: bigint;
  tipPerCell: bigint;
  /** Empty for a plain transfer; a Message, a Deploy or an upgrade otherwise. */
  payload: Uint8Array;
  signature: Signature | null;
}

function u64(value: bigint, what: string): bigint {
  if (value < 0n || value > U64_MAX) throw new Error(`${what} must be a u64, got ${value}`);
  return value;
}

function u128(value: bigint, what: string): bigint {
  if (value < 0n || value > U128_MAX) throw new Error(`${what} must be a u128, got ${value}`);
  return value;
}

function toArray(tx: Transaction, withSignature: boolean): CborValue[] {
  const signature =
    withSignature && tx.signature ? [BigInt(tx.signature.yParity), tx.signature.r, tx.signature.s] : null;
  return [
    u64(tx.chainId, 'chain_id'),
    u64(tx.nonce, 'nonce'),
    tx.to === null ? null : addressBytes(tx.to),
    u128(tx.value, 'value'),
    u64(tx.cyclesLimit, 'cycles_limit'),
    u64(tx.cellsLimit, 'cells_limit'),
    u128(tx.maxFeePerCycle, 'max_fee_per_cycle'),
    u128(tx.maxFeePerCell, 'max_fee_per_cell'),
    u128(tx.tipPerCycle, 'tip_per_cycle'),
    u128(tx.tipPerCell, 'tip_per_cell'),
    null,
    tx.payload,
    signature,
  ];
}

/** The canonical encoding (with the signature, or `null` in its place when unsigned). */
export function encodeTransaction(tx: Transaction): Uint8Array {
  return encodeCanonical(toArray(tx, true));
}

/** The canonical encoding with the signature set to `null`: what is signed. */
export function encodeUnsigned(tx: Transaction): Uint8Array {
  return encodeCanonical(toArray(tx, false));
}

/** keccak256 of the unsigned encoding. */
export function signingHash(tx: Transaction): Uint8Array {
  return keccak256(encodeUnsigned(tx));
}

/** keccak256 of the encoding as it stands (the transaction hash once signed). */
export function transactionHash(tx: Transaction): Hash {
  return toHex(keccak256(encodeTransaction(tx))) as Hash;
}

/** The transaction signed by `wallet` (a copy; the input is left as it is). */
export function signTransaction(tx: Transaction, wallet: Wallet): Transaction {
  return { ...tx, signature: wallet.signHash(signingHash(tx)) };
}

/** The address that signed `tx`; throws when unsigned or when the signature is refused. */
export function recoverSender(tx: Transaction): Address {
  if (!tx.signature) throw new Error('the transaction is not signed');
  return recoverAddress(signingHash(tx), tx.signature);
}

/** The most the transaction can cost its sender: value plus both meters at their max fees. */
export function maxCost(tx: Transaction): bigint {
  const cost = tx.value + tx.cyclesLimit * tx.maxFeePerCycle + tx.cellsLimit * tx.maxFeePerCell;
  if (cost > U128_MAX) throw new Error('value plus maximum fees overflows a 128-bit amount');
  return cost;
}

/** Decodes a canonical transaction (signed or not); throws on anything a node would refuse to decode. */
export function decodeTransaction(bytes: Uint8Array): Transaction {
  const item = decodeCanonical(bytes);
  if (!Array.isArray(item) || item.length !== 13) throw new Error('a transaction is a 13-element array');
  if (item[10] !== null) throw new Error('the access list must be null');
  let signature: Signature | null = null;
  if (item[12] !== null) {
    const sig = item[12];
    if (!Array.isArray(sig) || sig.length !== 3) throw new Error('a signature is [y_parity, r, s]');
    const parity = toBigInt(sig[0], 'y_parity');
    if (parity > 1n) throw new Error('y_parity must be 0 or 1');
    signature = { yParity: Number(parity) as 0 | 1, r: toBytes(sig[1], 'r', 32), s: toBytes(sig[2], 's', 32) };
  }
  return {
    chainId: u64(toBigInt(item[0], 'chain_id'), 'chain_id'),
    nonce: u64(toBigInt(item[1], 'nonce'), 'nonce'),
    to: item[2] === null ? null : normalizeAddress(toBytes(item[2], 'to', 20)),
    value: toBigInt(item[3], 'value'),
    cyclesLimit: u64(toBigInt(item[4], 'cycles_limit'), 'cycles_limit'),
    cellsLimit: u64(toBigInt(item[5], 'cells_limit'), 'cells_limit'),
    maxFeePerCycle: toBigInt(item[6], 'max_fee_per_cycle'),
    maxFeePerCell: toBigInt(item[7], 'max_fee_per_cell'),
    tipPerCycle: toBigInt(item[8], 'tip_per_cycle'),
    tipPerCell: toBigInt(item[9], 'tip_per_cell'),
    payload: toBytes(item[11], 'payload'),
    signature,
  };
}

/**
 * The body of `POST /submit` and `/submit_wait`: `{"Transactions": [tx, ...]}` (1 to 50 signed
 * transactions), canonical CBOR.
 */
export function encodeSubmission(txs: Transaction[]): Uint8Array {
  if (txs.length === 0 || txs.length > SUBMISSION_MAX_TRANSACTIONS) {
    throw new Error(`a submission holds 1 to ${SUBMISSION_MAX_TRANSACTIONS} transactions, got ${txs.length}`);
  }
  const body = encodeCanonical({ Transactions: txs.map((tx) => toArray(tx, true)) });
  if (body.length > SUBMISSION_MAX_BYTES) throw new Error(`a submission is at most ${SUBMISSION_MAX_BYTES} bytes`);
  return body;
}

/**
 * Canonical CBOR (RFC 8949 §4.2.1 core deterministic encoding), the form of everything Drover
 * signs or hashes: shortest integer and length heads, definite lengths, map keys sorted by their
 * encoded bytes (so shorter text keys first), no floats, and tag 2 only for unsigned integers
 * above 2^64−1 (`u128` amounts).
 *
 * Encoding is `cbor2` with its `cde` option: it always writes preferred (shortest) heads, sorts
 * map keys bytewise, and writes a `bigint` up to 2^64−1 as a plain integer and a larger one as a
 * tag-2 byte string without leading zeros. Callers pass integers as `bigint` so that no `u64`
 * loses precision; JavaScript `number`s that are not safe integers are refused here rather than
 * encoded as floats.
 *
 * Decoding is strict the way a node decodes: the bytes must be one well-formed item that a
 * canonical encoder would have produced byte for byte (decode, re-encode, compare), so any
 * non-shortest head, unsorted map, indefinite length, float or tag other than a canonical tag 2
 * is refused.
 */
import { decode, encode } from 'cbor2';
import { equalBytes } from './bytes.js';

/** A CBOR value as the SDK builds it: maps are plain objects (text keys) or `Map`s. */
export type CborValue =
  | bigint
  | boolean
  | null
  | string
  | Uint8Array
  | CborValue[]
  | Map<CborValue, CborValue>
  | { [key: string]: CborValue };

/** Most nesting levels a decoded item may have (as the node's decoder allows). */
export const CBOR_MAX_DEPTH = 32;

function check(value: unknown, depth: number): void {
  if (depth > CBOR_MAX_DEPTH) throw new Error(`CBOR nesting deeper than ${CBOR_MAX_DEPTH}`);
  if (typeof value === 'number') {
    throw new Error(`CBOR integers are bigint in this SDK, got the number ${value}`);
  }
  if (typeof value === 'bigint') {
    if (value < 0n || value >= 1n << 128n) throw new Error(`${value} is not an unsigned integer below 2^128`);
    return;
  }
  if (value === undefined) throw new Error('undefined has no canonical CBOR form here');
  if (Array.isArray(value)) {
    for (const item of value) check(item, depth + 1);
  } else if (value instanceof Map) {
    for (const [k, v] of value) {
      check(k, depth + 1);
      check(v, depth + 1);
    }
  } else if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const v of Object.values(value)) check(v, depth + 1);
  }
}

/** The canonical encoding of `value`. */
export function encodeCanonical(value: CborValue): Uint8Array {
  check(value, 0);
  return encode(value, { cde: true });
}

/**
 * Decodes `bytes` as one canonical CBOR item; throws when they are not one, or not canonical.
 * Integers come back as `number` when small and `bigint` otherwise (use {@link toBigInt}).
 */
export function decodeCanonical(bytes: Uint8Array): unknown {
  const value = decode(bytes, {
    rejectDuplicateKeys: true,
    rejectStreaming: true,
    rejectFloats: true,
    rejectUndefined: true,
    rejectSimple: true,
    rejectNegativeZero: true,
  } as Parameters<typeof decode>[1]);
  const again = encode(value, { cde: true });
  if (!equalBytes(again, bytes)) throw new Error('not canonical CBOR');
  depthOf(value, 0);
  return value;
}

function depthOf(value: unknown, depth: number): void {
  if (depth > CBOR_MAX_DEPTH) throw new Error(`CBOR nesting deeper than ${CBOR_MAX_DEPTH}`);
  if (Array.isArray(value)) for (const item of value) depthOf(item, depth + 1);
  else if (value instanceof Map) for (const v of value.values()) depthOf(v, depth + 1);
  else if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const v of Object.values(value)) depthOf(v, depth + 1);
  }
}

/** A decoded unsigned integer as `bigint`; throws for anything else. */
export function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new Error(`${what} is not an unsigned integer`);
}

/** A decoded byte string; throws for anything else (or another length when `length` is given). */
export function toBytes(value: unknown, what: string, length?: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new Error(`${what} is not a byte string`);
  if (length !== undefined && value.length !== length) throw new Error(`${what} is not ${length} bytes`);
  return value;
}

/** A decoded text string; throws for anything else. */
export function toText(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a text string`);
  return value;
}

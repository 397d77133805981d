/**
 * State proofs: the QMDB `current::ordered` proofs of `commonware-storage` 2026.10.0 (MMR family,
 * SHA-256, 32-byte activity-bitmap chunks, `Vec<u8>` keys and values), verified against a block's
 * `state_root` the way `KeyValueProof::verify` and `ExclusionProof::verify` do.
 *
 * The state is a log of operations in a Merkle Mountain Range (the ops tree) and a bitmap of which
 * operations are active. The canonical root binds both:
 *
 * ```text
 * state_root = SHA-256(ops_root ‖ grafted_root [‖ next_bit as u64 BE ‖ SHA-256(partial chunk)])
 * ```
 *
 * where the grafted tree is the ops tree with each height-8 node (covering one 256-bit chunk)
 * replaced by `SHA-256(chunk ‖ node)` (the node itself for an all-zero chunk), and the partial
 * part covers the bitmap's trailing incomplete chunk. A proof of one operation is its location,
 * its chunk (whose bit must be set: the operation is active), the ops root, the partial chunk's
 * digest, and a Merkle proof (peaks and path siblings, bagged backwards with the inactive peaks
 * folded first) from which the grafted root is rebuilt. A value is proven by the key's active
 * `Update {key, value, next_key}`; an absence by the active update of the span of adjacent keys
 * that strictly contains the key (cyclically), or for an empty database by its last commit.
 *
 * Every check of the Rust verifier is made here in the same order; every decode is bounded.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { compareBytes, concat, equalBytes, uintBE } from '../bytes.js';
import { Reader, varintBytes } from './codec.js';

/** Longest state key, in bytes. */
export const STATE_MAX_KEY_BYTES = 1024;
/** Largest state value, in bytes. */
export const STATE_MAX_VALUE_BYTES = 4 * 1024 * 1024;
/** Most digests a state proof may carry. */
export const STATE_PROOF_DIGESTS_MAX = 256;
/** Bitmap chunk size of the state database, in bytes. */
export const STATE_CHUNK_BYTES = 32;

const CHUNK_BITS = BigInt(STATE_CHUNK_BYTES * 8);
const GRAFTING_HEIGHT = 8; // log2(256 bits per chunk)
const MAX_LEAVES = 1n << 62n;
const MMR_DOMAIN = 0;
const BACKWARD_FOLD = 1;
const UPDATE_CONTEXT = 0xd2;
const COMMIT_CONTEXT = 0xd3;
const KEY_VALUE_TAG = 0;
const COMMIT_TAG = 1;

interface MerkleProof {
  leaves: bigint;
  inactivePeaks: bigint;
  digests: Uint8Array[];
}

interface OperationProof {
  loc: bigint;
  chunk: Uint8Array;
  proof: MerkleProof;
  partialChunkDigest: Uint8Array | null;
  opsRoot: Uint8Array;
}

/** Why a state proof was refused. */
export class StateProofError extends Error {
  constructor(
    /** `malformed`: it does not decode; `mismatch`: it does not verify. */
    readonly reason: 'malformed' | 'mismatch',
    message: string,
  ) {
    super(message);
  }
}

// --- Decoding ---------------------------------------------------------------------------------

function readLocation(r: Reader): bigint {
  const loc = r.varint();
  if (loc > MAX_LEAVES) throw new Error('location exceeds MAX_LEAVES');
  return loc;
}

function readBytes(r: Reader, max: number): Uint8Array {
  return r.take(r.length(max));
}

function readOperationProof(r: Reader): OperationProof {
  const loc = readLocation(r);
  const chunk = r.take(STATE_CHUNK_BYTES);
  const leaves = readLocation(r);
  const inactivePeaks = r.varint();
  const count = r.length(STATE_PROOF_DIGESTS_MAX);
  const digests = Array.from({ length: count }, () => r.take(32));
  // The MMR family has no pending chunk: its slot encodes to nothing.
  const partialChunkDigest = r.bool() ? r.take(32) : null;
  const opsRoot = r.take(32);
  return { loc, chunk, proof: { leaves, inactivePeaks, digests }, partialChunkDigest, opsRoot };
}

// --- Operations --------------------------------------------------------------------------------

function encodeVec(bytes: Uint8Array): Uint8Array {
  return concat(varintBytes(BigInt(bytes.length)), bytes);
}

function encodeUpdate(key: Uint8Array, value: Uint8Array, nextKey: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(UPDATE_CONTEXT), encodeVec(key), encodeVec(value), encodeVec(nextKey));
}

function encodeCommit(metadata: Uint8Array | null, floor: bigint): Uint8Array {
  const option = metadata === null ? Uint8Array.of(0) : concat(Uint8Array.of(1), encodeVec(metadata));
  return concat(Uint8Array.of(COMMIT_CONTEXT), option, varintBytes(floor));
}

// --- MMR geometry (positions are node indexes in post-order, locations leaf indexes) ---------

const popcount = (n: bigint): bigint => {
  let c = 0n;
  for (let v = n; v > 0n; v >>= 1n) c += v & 1n;
  return c;
};

const bitLength = (n: bigint): number => n.toString(2).length - (n === 0n ? 1 : 0);

function locationToPosition(loc: bigint): bigint {
  return 2n * loc - popcount(loc);
}

function positionToLocation(pos: bigint): bigint | null {
  const f = (n: bigint) => 2n * n - popcount(n);
  let n = pos >> 1n;
  for (let i = 0; i < 3; i++) n = (pos + popcount(n)) >> 1n;
  for (const candidate of [n, n - 1n, n + 1n]) if (candidate >= 0n && f(candidate) === pos) return candidate;
  return null;
}

/** (position, height) of each peak of an MMR of `size` nodes, tallest first. */
function peaks(size: bigint): [bigint, number][] {
  const out: [bigint, number][] = [];
  if (size === 0n) return out;
  const start = (1n << BigInt(bitLength(size))) - 1n;
  let twoH = 1n << BigInt(start.toString(2).length); // 2^(trailing ones of start)
  let node = start - 1n;
  while (twoH > 1n) {
    if (node < size) {
      out.push([node, bitLength(twoH) - 2]);
      node += twoH - 1n;
      continue;
    }
    twoH >>= 1n;
    node -= twoH;
  }
  return out;
}

function posToHeight(position: bigint): number {
  let pos = position;
  if (pos === 0n) return 0;
  let size = (1n << BigInt(bitLength(pos))) - 1n;
  while (size !== 0n) {
    if (pos >= size) pos -= size;
    size >>= 1n;
  }
  return Number(pos);
}

function leftmostLeaf(pos: bigint, height: number): bigint {
  const loc = positionToLocation(pos + 2n - (1n << BigInt(height + 1)));
  if (loc === null) throw new Error('leftmost descendant is not a leaf');
  return loc;
}

interface Subtree {
  pos: bigint;
  height: number;
  leafStart: bigint;
}

const leafEnd = (s: Subtree): bigint => s.leafStart + (1n << BigInt(s.height));
const isBefore = (s: Subtree, start: bigint): boolean => leafEnd(s) <= start;
const isOutside = (s: Subtree, start: bigint, end: bigint): boolean => isBefore(s, start) || s.leafStart >= end;
const isInside = (s: Subtree, start: bigint, end: bigint): boolean => s.leafStart >= start && leafEnd(s) <= end;

function children(s: Subtree): [Subtree, Subtree] {
  const childHeight = s.height - 1;
  return [
    { pos: s.pos - (1n << BigInt(s.height)), height: childHeight, leafStart: s.leafStart },
    { pos: s.pos - 1n, height: childHeight, leafStart: s.leafStart + (1n << BigInt(childHeight)) },
  ];
}

function collectSiblings(s: Subtree, start: bigint, end: bigint, out: bigint[]): void {
  if (isOutside(s, start, end)) {
    out.push(s.pos);
    return;
  }
  if (isInside(s, start, end)) return;
  if (s.height > 0) for (const child of children(s)) collectSiblings(child, start, end, out);
}

// --- Hashing ---------------------------------------------------------------------------------

const hash = (...parts: Uint8Array[]): Uint8Array => sha256(concat(...parts));

/** The grafting verifier: standard MMR hashing, with each height-8 node grafted with its chunk. */
class GraftingHasher {
  constructor(
    private readonly startChunk: bigint,
    private readonly chunks: Uint8Array[],
    private readonly graftableChunks: bigint,
  ) {}

  leaf(pos: bigint, element: Uint8Array): Uint8Array {
    return hash(uintBE(pos, 8), element);
  }

  node(pos: bigint, left: Uint8Array, right: Uint8Array): Uint8Array {
    const digest = hash(uintBE(pos, 8), left, right);
    if (posToHeight(pos) !== GRAFTING_HEIGHT) return digest;
    const chunkIndex = leftmostLeaf(pos, GRAFTING_HEIGHT) >> BigInt(GRAFTING_HEIGHT);
    if (chunkIndex >= this.graftableChunks) return digest;
    const local = chunkIndex - this.startChunk;
    if (local < 0n || local >= BigInt(this.chunks.length)) return digest;
    const chunk = this.chunks[Number(local)]!;
    return chunk.every((b) => b === 0) ? digest : hash(chunk, digest);
  }
}

function reconstructPeak(
  s: Subtree,
  hasher: GraftingHasher,
  start: bigint,
  end: bigint,
  elements: Uint8Array[],
  cursor: { element: number; sibling: number },
  siblings: Uint8Array[],
): Uint8Array {
  if (isOutside(s, start, end)) {
    const digest = siblings[cursor.sibling++];
    if (!digest) throw new StateProofError('mismatch', 'missing digests in proof');
    return digest;
  }
  if (s.height === 0) {
    const element = elements[cursor.element++];
    if (!element) throw new StateProofError('mismatch', 'missing elements');
    return hasher.leaf(s.pos, element);
  }
  const [left, right] = children(s);
  const l = reconstructPeak(left, hasher, start, end, elements, cursor, siblings);
  const r = reconstructPeak(right, hasher, start, end, elements, cursor, siblings);
  return hasher.node(s.pos, l, r);
}

/** `merkle::Proof::reconstruct_root_inner` for one element at `loc` under backward bagging. */
function reconstructGraftedRoot(proof: MerkleProof, hasher: GraftingHasher, element: Uint8Array, loc: bigint): Uint8Array {
  const start = loc;
  const end = loc + 1n;
  if (start >= MAX_LEAVES || end > proof.leaves) throw new StateProofError('mismatch', 'location out of range');
  const size = locationToPosition(proof.leaves);
  const before: Subtree[] = [];
  const overlapping: Subtree[] = [];
  const after: bigint[] = [];
  let leafStart = 0n;
  for (const [pos, height] of peaks(size)) {
    const peak = { pos, height, leafStart };
    leafStart = leafEnd(peak);
    if (isBefore(peak, start)) before.push(peak);
    else if (peak.leafStart >= end) after.push(pos);
    else overlapping.push(peak);
  }
  const siblingPositions: bigint[] = [];
  for (const peak of overlapping) collectSiblings(peak, start, end, siblingPositions);
  const totalPeaks = BigInt(before.length + overlapping.length + after.length);
  if (proof.inactivePeaks > totalPeaks) throw new StateProofError('mismatch', 'more inactive peaks than peaks');
  const inactive = Number(proof.inactivePeaks);
  const foldCount = Math.min(inactive, before.length);
  const foldPrefix = before.slice(0, foldCount);
  const prefixActive = before.slice(foldCount);
  const firstAfter = before.length + overlapping.length;
  const individualCount = Math.min(Math.max(inactive - firstAfter, 0), after.length);
  const afterPeaks = after.slice(0, individualCount);
  const suffixPeaks = after.slice(individualCount);

  const foldDigests = foldPrefix.length > 0 ? 1 : 0;
  const suffixDigests = suffixPeaks.length > 0 ? 1 : 0;
  const required = foldDigests + prefixActive.length + afterPeaks.length + suffixDigests + siblingPositions.length;
  if (proof.digests.length !== required) throw new StateProofError('mismatch', `the proof holds ${proof.digests.length} digests, not ${required}`);
  let at = 0;
  const peakDigests: Uint8Array[] = [];
  if (foldDigests) peakDigests.push(proof.digests[at++]!);
  for (let i = 0; i < prefixActive.length; i++) peakDigests.push(proof.digests[at++]!);
  const afterDigests = proof.digests.slice(at, at + afterPeaks.length);
  at += afterPeaks.length;
  const suffixAcc = suffixDigests ? proof.digests[at++]! : null;
  const siblings = proof.digests.slice(at);
  const cursor = { element: 0, sibling: 0 };
  for (const peak of overlapping) peakDigests.push(reconstructPeak(peak, hasher, start, end, [element], cursor, siblings));
  peakDigests.push(...afterDigests);
  if (suffixAcc) peakDigests.push(suffixAcc);
  if (cursor.element !== 1 || cursor.sibling !== siblings.length) throw new StateProofError('mismatch', 'extra digests in proof');

  // Fold the inactive peaks (the prefix accumulator counts as one), then bag the rest backwards.
  const toFold = foldPrefix.length === 0 ? inactive : Math.max(inactive - foldPrefix.length, 0) + 1;
  const domain = Uint8Array.of(MMR_DOMAIN, BACKWARD_FOLD);
  const leaves = uintBE(proof.leaves, 8);
  if (peakDigests.length === 0) throw new StateProofError('mismatch', 'no peaks');
  let acc = peakDigests[0]!;
  let next = 1;
  for (let i = 0; i < toFold - 1; i++) {
    const peak = peakDigests[next++];
    if (!peak) throw new StateProofError('mismatch', 'invalid inactive peaks');
    acc = hash(acc, peak);
  }
  const rest = peakDigests.slice(next);
  if (rest.length > 0) {
    let bag = rest[rest.length - 1]!;
    for (let i = rest.length - 2; i >= 0; i--) bag = hash(rest[i]!, bag);
    acc = hash(acc, bag);
  }
  return inactive === 0 ? hash(domain, leaves, acc) : hash(domain, leaves, uintBE(BigInt(inactive), 8), acc);
}

/** `current::proof::operation::Proof::verify` for the encoded operation `element`. */
function verifyOperation(proof: OperationProof, element: Uint8Array, root: Uint8Array): void {
  const bit = proof.loc % CHUNK_BITS;
  if ((proof.chunk[Number(bit / 8n)]! & (1 << Number(bit % 8n))) === 0) {
    throw new StateProofError('mismatch', 'the operation is not active');
  }
  const leaves = proof.proof.leaves;
  if (proof.loc + 1n > leaves) throw new StateProofError('mismatch', 'location out of range');
  const chunkIndex = proof.loc / CHUNK_BITS;
  const complete = leaves / CHUNK_BITS;
  const nextBit = leaves % CHUNK_BITS;
  // In an MMR every complete chunk is graftable: no pending chunk exists.
  if (nextBit !== 0n) {
    if (!proof.partialChunkDigest) throw new StateProofError('mismatch', 'the proof has no partial chunk digest');
    if (chunkIndex === complete && !equalBytes(proof.partialChunkDigest, sha256(proof.chunk))) {
      throw new StateProofError('mismatch', 'the partial chunk digest does not match the chunk');
    }
  } else if (proof.partialChunkDigest) {
    throw new StateProofError('mismatch', 'the proof has an unexpected partial chunk digest');
  }
  const hasher = new GraftingHasher(chunkIndex, [proof.chunk], complete);
  const grafted = reconstructGraftedRoot(proof.proof, hasher, element, proof.loc);
  const computed = nextBit === 0n ? hash(proof.opsRoot, grafted) : hash(proof.opsRoot, grafted, uintBE(nextBit, 8), proof.partialChunkDigest!);
  if (!equalBytes(computed, root)) throw new StateProofError('mismatch', 'the proof does not verify against the root');
}

/** Whether `key` lies in the cyclic span `[start, end)` (wrapping past the largest key). */
function containsCyclic(start: Uint8Array, end: Uint8Array, key: Uint8Array): boolean {
  const afterStart = compareBytes(key, start) >= 0;
  const beforeEnd = compareBytes(key, end) < 0;
  return compareBytes(start, end) >= 0 ? afterStart || beforeEnd : afterStart && beforeEnd;
}

/**
 * Checks `proof` (a key-value proof when `value` is given, an exclusion proof when it is `null`)
 * for `key` against the state root; throws a {@link StateProofError} when refused.
 */
export function verifyStateProof(key: Uint8Array, value: Uint8Array | null, proof: Uint8Array, root: Uint8Array): void {
  let check: () => void;
  try {
    const r = new Reader(proof);
    if (value !== null) {
      const op = readOperationProof(r);
      const nextKey = readBytes(r, STATE_MAX_KEY_BYTES);
      r.finish();
      check = () => verifyOperation(op, encodeUpdate(key, value, nextKey), root);
    } else {
      const tag = r.u8();
      if (tag === KEY_VALUE_TAG) {
        const op = readOperationProof(r);
        const spanKey = readBytes(r, STATE_MAX_KEY_BYTES);
        const spanValue = readBytes(r, STATE_MAX_VALUE_BYTES);
        const nextKey = readBytes(r, STATE_MAX_KEY_BYTES);
        r.finish();
        check = () => {
          if (equalBytes(spanKey, key) || !containsCyclic(spanKey, nextKey, key)) {
            throw new StateProofError('mismatch', 'the key is not inside the proven span');
          }
          verifyOperation(op, encodeUpdate(spanKey, spanValue, nextKey), root);
        };
      } else if (tag === COMMIT_TAG) {
        const op = readOperationProof(r);
        const metadata = r.bool() ? readBytes(r, STATE_MAX_VALUE_BYTES) : null;
        r.finish();
        check = () => verifyOperation(op, encodeCommit(metadata, op.loc), root);
      } else {
        throw new Error(`invalid exclusion proof tag ${tag}`);
      }
    }
  } catch (e) {
    throw new StateProofError('malformed', `the proof does not decode: ${(e as Error).message}`);
  }
  check();
}

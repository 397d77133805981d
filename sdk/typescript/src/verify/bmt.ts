/**
 * Inclusion proofs of the binary Merkle tree (`commonware_storage::bmt`) over a block's
 * transaction hashes or receipt digests: leaves hashed with their position
 * (`SHA-256(u32 BE index ‖ leaf)`), each level pairing nodes (an unpaired last node with itself),
 * and the root bound to the leaf count, `SHA-256(u32 BE leaf_count ‖ tree root)`.
 *
 * Encoding: `leaf_count` as u32 BE, then the sibling digests as a varint count and 32 bytes each
 * (at most 32 for one proven item).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concat, equalBytes, uintBE } from '../bytes.js';
import { Reader } from './codec.js';

/** Most sibling levels a one-item proof has. */
export const BMT_MAX_LEVELS = 32;

/** A decoded proof. */
export interface BmtProof {
  leafCount: number;
  siblings: Uint8Array[];
}

/** Decodes an encoded proof of one item; throws when it does not decode. */
export function decodeBmtProof(bytes: Uint8Array): BmtProof {
  const r = new Reader(bytes);
  const leafCount = Number(r.uintBE(4));
  const count = r.length(BMT_MAX_LEVELS);
  const siblings = Array.from({ length: count }, () => r.take(32));
  r.finish();
  return { leafCount, siblings };
}

/** Whether `proof` proves `leaf` at `index` under `root`. */
export function verifyBmtInclusion(leaf: Uint8Array, index: number, proof: BmtProof, root: Uint8Array): boolean {
  if (!Number.isInteger(index) || index < 0 || index >= proof.leafCount) return false;
  let position = index;
  let computed = sha256(concat(uintBE(position, 4), leaf));
  let levelSize = proof.leafCount;
  let next = 0;
  while (levelSize > 1) {
    const lastOdd = position % 2 === 0 && position + 1 >= levelSize;
    let left: Uint8Array;
    let right: Uint8Array;
    if (lastOdd) {
      left = computed;
      right = computed;
    } else {
      const sibling = proof.siblings[next++];
      if (!sibling) return false;
      [left, right] = position % 2 === 0 ? [computed, sibling] : [sibling, computed];
    }
    computed = sha256(concat(left, right));
    position = Math.floor(position / 2);
    levelSize = Math.ceil(levelSize / 2);
  }
  if (next !== proof.siblings.length) return false;
  return equalBytes(sha256(concat(uintBE(proof.leafCount, 4), computed)), root);
}

/**
 * Finalization certificates and block headers (`docs/proofs.md`, "Verification", steps 1–2).
 *
 * Consensus is threshold Simplex over BLS12-381 "MinSig": 48-byte G1 signatures under one 96-byte
 * G2 group key, the genesis `identity`, which stays the same across reshares. A finalization is
 * the proposal (round = epoch and view, parent view, payload = block digest, in the Commonware
 * codec) and one threshold signature; it verifies as
 *
 * ```text
 * BLS.verify(identity, DST = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_",
 *            varint(len(ns)) ‖ ns ‖ proposal bytes)   with ns = "_DROVER_FINALIZE"
 * ```
 *
 * The block digest is SHA-256 of the header bytes (`crates/block/src/block.rs`), which the caller
 * compares with the certified payload before trusting any header field.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type Address, type BytesLike, bytesOf, concat, equalBytes, fixedBytes, toHex, utf8 } from '../bytes.js';
import { CodecError, Reader, varintBytes } from './codec.js';

/** Namespace of every consensus signature of this chain family. */
export const NAMESPACE = '_DROVER';
/** Domain separation tag of MinSig message signatures. */
export const DST_G1_MESSAGE = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_';
const FINALIZE_NAMESPACE = utf8(`${NAMESPACE}_FINALIZE`);
/** Bytes of an encoded group public key (G2, compressed). */
export const IDENTITY_BYTES = 96;
/** Bytes of a threshold signature (G1, compressed). */
export const SIGNATURE_BYTES = 48;
/** Largest location a QMDB/MMR encodes (2^62). */
const MAX_LEAVES = 1n << 62n;

/** Why a certificate was refused. */
export class CertificateError extends Error {}

/** A finalized proposal. */
export interface Proposal {
  epoch: bigint;
  view: bigint;
  parentView: bigint;
  /** The finalized block digest. */
  payload: Uint8Array;
}

/** A decoded block header (a block without its transactions). */
export interface BlockHeader {
  epoch: bigint;
  view: bigint;
  leader: Uint8Array;
  parentView: bigint;
  parentDigestInContext: Uint8Array;
  parent: Uint8Array;
  height: bigint;
  timestampMs: bigint;
  proposer: Address;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  cyclesUsed: bigint;
  cellsUsed: bigint;
  basefeeCycle: bigint;
  basefeeCell: bigint;
  stateRoot: Uint8Array;
  opsRoot: Uint8Array;
  syncStart: bigint;
  syncEnd: bigint;
}

/** Parses a group public key written as hex of its encoding (the genesis `identity`). */
export function parseIdentity(identity: BytesLike): Uint8Array {
  const bytes = fixedBytes(typeof identity === 'string' ? identity.trim() : identity, IDENTITY_BYTES, 'a group public key');
  const point = bls12_381.G2.Point.fromBytes(bytes);
  if (point.is0()) throw new Error('the group public key is the point at infinity');
  point.assertValidity();
  return bytes;
}

function proposalBytes(p: Proposal): Uint8Array {
  return concat(varintBytes(p.epoch), varintBytes(p.view), varintBytes(p.parentView), p.payload);
}

/** Decodes a finalization certificate and checks its signature against `identity`. */
export function verifyFinalization(certificate: Uint8Array, identity: Uint8Array): Proposal {
  let proposal: Proposal;
  let signature: Uint8Array;
  try {
    const r = new Reader(certificate);
    proposal = { epoch: r.varint(), view: r.varint(), parentView: r.varint(), payload: r.take(32) };
    signature = r.take(SIGNATURE_BYTES);
    r.finish();
  } catch (e) {
    throw new CertificateError(`the finalization certificate does not decode: ${(e as Error).message}`);
  }
  let ok = false;
  try {
    const sig = bls12_381.G1.Point.fromBytes(signature);
    const key = bls12_381.G2.Point.fromBytes(identity);
    if (!sig.is0() && !key.is0()) {
      const message = concat(varintBytes(BigInt(FINALIZE_NAMESPACE.length)), FINALIZE_NAMESPACE, proposalBytes(proposal));
      const point = bls12_381.shortSignatures.hash(message, DST_G1_MESSAGE);
      ok = bls12_381.shortSignatures.verify(sig, point, key);
    }
  } catch {
    ok = false;
  }
  if (!ok) throw new CertificateError('the finalization certificate does not verify against the trusted group key');
  return proposal;
}

/** SHA-256 of the header bytes: the block digest (the API's block `hash`). */
export function blockDigest(header: Uint8Array): Uint8Array {
  return sha256(header);
}

/** Decodes header bytes (`Block::header_bytes`); refuses trailing bytes. */
export function decodeHeader(header: Uint8Array): BlockHeader {
  const r = new Reader(header);
  const location = () => {
    const loc = r.varint();
    if (loc > MAX_LEAVES) throw new CodecError('location exceeds MAX_LEAVES');
    return loc;
  };
  const out: BlockHeader = {
    epoch: r.varint(),
    view: r.varint(),
    leader: r.take(32),
    parentView: r.varint(),
    parentDigestInContext: r.take(32),
    parent: r.take(32),
    height: r.varint(),
    timestampMs: r.uintBE(8),
    proposer: toHex(r.take(20)) as Address,
    transactionsRoot: r.take(32),
    receiptsRoot: r.take(32),
    cyclesUsed: r.uintBE(8),
    cellsUsed: r.uintBE(8),
    basefeeCycle: r.uintBE(16),
    basefeeCell: r.uintBE(16),
    stateRoot: r.take(32),
    opsRoot: r.take(32),
    syncStart: location(),
    syncEnd: location(),
  };
  if (out.syncStart >= out.syncEnd) throw new CodecError('sync range start must be below its end');
  r.finish();
  return out;
}

/** Why the served block is not the certified one. */
export class BlockError extends Error {}

/**
 * Steps 1 and 2: the certificate (hex) verifies against `identity` and finalizes exactly the block
 * whose header bytes are `header`; answers the decoded header and its digest.
 */
export function verifyCertifiedHeader(header: Uint8Array, finalizationHex: string, identity: Uint8Array): { header: BlockHeader; digest: Uint8Array } {
  let certificate: Uint8Array;
  try {
    certificate = bytesOf(finalizationHex);
  } catch (e) {
    throw new CertificateError(`the finalization certificate is not hex: ${(e as Error).message}`);
  }
  const proposal = verifyFinalization(certificate, identity);
  const digest = blockDigest(header);
  if (!equalBytes(proposal.payload, digest)) {
    throw new BlockError(`the certificate finalizes block ${toHex(proposal.payload)}, not the served block ${toHex(digest)}`);
  }
  try {
    return { header: decodeHeader(header), digest };
  } catch (e) {
    throw new BlockError(`the served block does not decode: ${(e as Error).message}`);
  }
}

/**
 * Keys, addresses and signatures (`docs/protocol.md`, "Keys and addresses", "Signatures").
 *
 * Accounts use secp256k1. An address is the last 20 bytes of keccak256 of the 64-byte
 * uncompressed public key `X ‖ Y`, the Ethereum rule, so an Ethereum private key is a Drover
 * key with the same address. Signatures are ECDSA over a 32-byte hash with the RFC 6979 nonce
 * and low `s`; the signer is recovered from the signature. Two wire forms exist: the
 * transaction's `[y_parity, r, s]` and the flat 65 bytes `r ‖ s ‖ v` (`v` = y-parity 0/1) of the
 * runner flows and RAS tokens.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  type Address,
  type BytesLike,
  bytesOf,
  concat,
  fixedBytes,
  hashBytes,
  toHex,
  uintBE,
  utf8,
} from './bytes.js';

/** A secp256k1 signature in its parts. */
export interface Signature {
  /** 0 or 1: the parity of the nonce point's y coordinate. */
  yParity: 0 | 1;
  /** 32 bytes big-endian. */
  r: Uint8Array;
  /** 32 bytes big-endian, at most n/2. */
  s: Uint8Array;
}

/** keccak256 of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

const CURVE_ORDER = secp256k1.Point.Fn.ORDER;

/** The address of a 33-byte compressed or 65-byte uncompressed public key. */
export function addressOfPublicKey(publicKey: Uint8Array): Address {
  const point = secp256k1.Point.fromBytes(publicKey);
  const uncompressed = point.toBytes(false);
  return toHex(keccak256(uncompressed.subarray(1)).subarray(12)) as Address;
}

/**
 * A secp256k1 account key. Holds the 32 secret bytes; every method is pure and synchronous.
 */
export class Wallet {
  readonly #secret: Uint8Array;
  /** The account's address. */
  readonly address: Address;

  private constructor(secret: Uint8Array) {
    if (!secp256k1.utils.isValidSecretKey(secret)) throw new Error('not a secp256k1 secret key (0 or not below n)');
    this.#secret = Uint8Array.from(secret);
    this.address = addressOfPublicKey(secp256k1.getPublicKey(this.#secret, false));
  }

  /** A fresh random key. */
  static generate(): Wallet {
    return new Wallet(secp256k1.utils.randomSecretKey());
  }

  /**
   * A key from its 32 secret bytes, or from a key file's text: 64 hex digits, `0x` optional,
   * any case, surrounding whitespace ignored (an Ethereum private key imports as is).
   */
  static fromSecret(secret: BytesLike): Wallet {
    const bytes = typeof secret === 'string' ? bytesOf(secret.trim()) : secret;
    return new Wallet(fixedBytes(bytes, 32, 'a secret key'));
  }

  /**
   * Development key `index`: `keccak256("drover-dev-seed" ‖ index as 4 bytes BE)`, retried with
   * a 4-byte counter appended in the (2^-128) case the hash is not a valid scalar. Public keys,
   * for development chains only.
   */
  static dev(index: number): Wallet {
    const base = concat(utf8('drover-dev-seed'), uintBE(index, 4));
    let candidate = keccak256(base);
    for (let counter = 1; !secp256k1.utils.isValidSecretKey(candidate); counter++) {
      candidate = keccak256(concat(base, uintBE(counter, 4)));
    }
    return new Wallet(candidate);
  }

  /** The secret key as `0x` + 64 hex digits (what a key file holds). */
  secretHex(): `0x${string}` {
    return toHex(this.#secret);
  }

  /** The 33-byte compressed public key (what RAS session keys and secrets readers use). */
  publicKey(): Uint8Array {
    return secp256k1.getPublicKey(this.#secret, true);
  }

  /** Signs a 32-byte hash: RFC 6979 nonce, low `s`. */
  signHash(hash: BytesLike): Signature {
    const recovered = secp256k1.sign(hashBytes(hash), this.#secret, { prehash: false, format: 'recovered' });
    return { yParity: recovered[0] as 0 | 1, r: recovered.slice(1, 33), s: recovered.slice(33, 65) };
  }

  /** The flat 65-byte form `r ‖ s ‖ v` of {@link signHash}, `v` the y-parity (0/1). */
  signHashFlat(hash: BytesLike): Uint8Array {
    return flatSignature(this.signHash(hash));
  }

  /** ECDH with a public key: the 32-byte x coordinate of `secret · point`. */
  sharedSecret(publicKey: Uint8Array): Uint8Array {
    return secp256k1.getSharedSecret(this.#secret, publicKey, true).subarray(1);
  }
}

/** `r ‖ s ‖ v` (65 bytes, `v` 0/1). */
export function flatSignature(signature: Signature): Uint8Array {
  return concat(signature.r, signature.s, Uint8Array.of(signature.yParity));
}

/** Parses a flat 65-byte `r ‖ s ‖ v` signature (`v` 0/1, or 27/28 as some wallets write it). */
export function parseFlatSignature(bytes: BytesLike): Signature {
  const flat = fixedBytes(bytes, 65, 'a flat signature');
  const v = flat[64]!;
  const yParity = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : -1;
  if (yParity < 0) throw new Error(`signature recovery byte ${v} is not 0, 1, 27 or 28`);
  return { yParity: yParity as 0 | 1, r: flat.slice(0, 32), s: flat.slice(32, 64) };
}

/**
 * The address that signed `hash`, with the checks a node makes: `r` and `s` in 1..n−1, low `s`,
 * parity 0/1. Throws when the signature is refused or recovers no key.
 */
export function recoverAddress(hash: BytesLike, signature: Signature): Address {
  const r = BigInt(toHex(fixedBytes(signature.r, 32, 'r')));
  const s = BigInt(toHex(fixedBytes(signature.s, 32, 's')));
  if (r === 0n || r >= CURVE_ORDER || s === 0n || s >= CURVE_ORDER) throw new Error('signature r or s out of range');
  if (s > CURVE_ORDER / 2n) throw new Error('signature s is high (not low-s)');
  if (signature.yParity !== 0 && signature.yParity !== 1) throw new Error('signature parity is not 0 or 1');
  const recovered = concat(Uint8Array.of(signature.yParity), signature.r, signature.s);
  const publicKey = secp256k1.recoverPublicKey(recovered, hashBytes(hash), { prehash: false });
  return addressOfPublicKey(publicKey);
}

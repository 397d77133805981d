/**
 * Storage-relay (RAS) authentication (`docs/storage.md`, "The delegation token", "Each request").
 *
 * A wallet signs one delegation token handing a session key the right to act for it: the
 * canonical CBOR map `{"scope": "ras", "wallet", "audience": "drover:ras", "chain_id",
 * "session_key", "expires_at_ms"}` plus `"signature"`, the wallet's `r ‖ s ‖ v` over keccak256 of
 * the map without it. It travels base64url (no padding) in `X-DRFS-Delegation`. Each request
 * then carries `X-DRFS-Timestamp` (Unix ms), `X-DRFS-Nonce` (16+ random bytes as hex) and
 * `X-DRFS-Signature`: the session key's `0x` + `r ‖ s ‖ v` over
 *
 * ```text
 * keccak256(method ‖ " " ‖ path_and_query ‖ "\n" ‖ audience ‖ "\n" ‖ timestamp ‖ "\n" ‖ nonce ‖ "\n" ‖ keccak256(body))
 * ```
 *
 * The audience is the verifier: `drover-node:<chain id>` for a node, `drover-relay:<address>`
 * for the relay a volume names on chain.
 */
import { type Address, addressBytes, concat, fixedBytes, randomBytes, toBase64Url, toHex, utf8 } from './bytes.js';
import { encodeCanonical } from './cbor.js';
import { Wallet, keccak256 } from './keys.js';

/** Header carrying the delegation token. */
export const DELEGATION_HEADER = 'X-DRFS-Delegation';
/** Header carrying the request's Unix time in milliseconds. */
export const TIMESTAMP_HEADER = 'X-DRFS-Timestamp';
/** Header carrying the request's nonce (hex). */
export const NONCE_HEADER = 'X-DRFS-Nonce';
/** Header carrying the session key's signature of the request. */
export const SIGNATURE_HEADER = 'X-DRFS-Signature';
/** Longest a token may be valid for, in ms (30 days). */
export const MAX_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1_000;
/** Lifetime of a token {@link RasSigner.issue} makes, in ms (one hour). */
export const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60 * 1_000;
/** Random bytes in a request nonce. */
export const NONCE_BYTES = 16;

/** The fields a wallet signs. */
export interface DelegationToken {
  wallet: Address;
  /** Compressed secp256k1 public key of the session (33 bytes). */
  sessionKey: Uint8Array;
  chainId: bigint;
  expiresAtMs: bigint;
  /** The wallet's `r ‖ s ‖ v` over {@link tokenSigningHash}. */
  signature: Uint8Array;
}

function tokenMap(token: Omit<DelegationToken, 'signature'>) {
  return {
    scope: 'ras',
    wallet: addressBytes(token.wallet),
    audience: 'drover:ras',
    chain_id: token.chainId,
    session_key: fixedBytes(token.sessionKey, 33, 'a session key'),
    expires_at_ms: token.expiresAtMs,
  };
}

/** keccak256 of the token's map without `signature`: what the wallet signs. */
export function tokenSigningHash(token: Omit<DelegationToken, 'signature'>): Uint8Array {
  return keccak256(encodeCanonical(tokenMap(token)));
}

/** The wallet's token for `sessionKey` (its compressed public key) on `chainId`, valid until `expiresAtMs`. */
export function issueToken(wallet: Wallet, sessionKey: Uint8Array, chainId: bigint, expiresAtMs: bigint): DelegationToken {
  const unsigned = { wallet: wallet.address, sessionKey, chainId, expiresAtMs };
  return { ...unsigned, signature: wallet.signHashFlat(tokenSigningHash(unsigned)) };
}

/** The token's canonical CBOR bytes (the map with `signature`). */
export function encodeTokenBytes(token: DelegationToken): Uint8Array {
  return encodeCanonical({ ...tokenMap(token), signature: fixedBytes(token.signature, 65, 'a flat signature') });
}

/** The header value: base64url without padding of {@link encodeTokenBytes}. */
export function encodeToken(token: DelegationToken): string {
  return toBase64Url(encodeTokenBytes(token));
}

/** The audience of a chain's nodes. */
export function nodeAudience(chainId: bigint | number): string {
  return `drover-node:${chainId}`;
}

/** The audience of the relay registered as `relay` (take the address from the chain, never from the relay). */
export function relayAudience(relay: Address): string {
  return `drover-relay:${toHex(addressBytes(relay))}`;
}

/** What the session key signs for one request (see the module documentation). */
export function requestHash(
  method: string,
  pathAndQuery: string,
  audience: string,
  timestamp: string,
  nonce: string,
  body: Uint8Array,
): Uint8Array {
  const head = utf8(`${method} ${pathAndQuery}\n${audience}\n${timestamp}\n${nonce}\n`);
  return keccak256(concat(head, keccak256(body)));
}

/** The four `X-DRFS-*` headers of one request. */
export type RasHeaders = Record<typeof DELEGATION_HEADER | typeof TIMESTAMP_HEADER | typeof NONCE_HEADER | typeof SIGNATURE_HEADER, string>;

/** A session: the wallet's token and the session key that signs each request. */
export class RasSigner {
  readonly token: DelegationToken;
  readonly encoded: string;
  readonly #session: Wallet;

  constructor(token: DelegationToken, session: Wallet) {
    this.token = token;
    this.encoded = encodeToken(token);
    this.#session = session;
  }

  /** A fresh session key, delegated by `wallet` on `chainId` for `lifetimeMs` (one hour by default). */
  static issue(wallet: Wallet, chainId: bigint | number, options: { session?: Wallet; lifetimeMs?: number; nowMs?: number } = {}): RasSigner {
    const session = options.session ?? Wallet.generate();
    const lifetime = Math.min(options.lifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS, MAX_TOKEN_LIFETIME_MS);
    const expires = BigInt((options.nowMs ?? Date.now()) + lifetime);
    return new RasSigner(issueToken(wallet, session.publicKey(), BigInt(chainId), expires), session);
  }

  /** The wallet the session acts for. */
  get wallet(): Address {
    return this.token.wallet;
  }

  /** The session's compressed public key (what `storage.revoke` names). */
  get sessionPublicKey(): Uint8Array {
    return this.token.sessionKey;
  }

  /** Headers for a request to `audience`, at `timestampMs` with `nonce` (random and now when left out). */
  headers(
    audience: string,
    request: { method: string; pathAndQuery: string; body?: Uint8Array | string },
    at: { timestampMs?: number; nonce?: Uint8Array } = {},
  ): RasHeaders {
    const timestamp = String(at.timestampMs ?? Date.now());
    const nonce = toHex(at.nonce ?? randomBytes(NONCE_BYTES)).slice(2);
    const body = typeof request.body === 'string' ? utf8(request.body) : request.body ?? new Uint8Array();
    const hash = requestHash(request.method, request.pathAndQuery, audience, timestamp, nonce, body);
    return {
      [DELEGATION_HEADER]: this.encoded,
      [TIMESTAMP_HEADER]: timestamp,
      [NONCE_HEADER]: nonce,
      [SIGNATURE_HEADER]: toHex(this.#session.signHashFlat(hash)),
    };
  }
}

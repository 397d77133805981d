/**
 * Secret envelopes (`docs/secrets.md`): a value encrypted on the owner's machine to one reader's
 * secp256k1 public key, bound to the owner, the reader and the secret's name.
 *
 * ```text
 * E       = e·G (33 bytes compressed), e fresh;  nonce: 12 fresh bytes
 * shared  = x(e·R)
 * key     = HKDF-SHA256(salt = E, ikm = shared, info = "drover-secret-v1" ‖ owner ‖ reader ‖ name), 32 bytes
 * ct‖tag  = AES-256-GCM(key, nonce, plaintext, aad = 0x01 ‖ owner ‖ reader ‖ name)
 * envelope = 0x01 ‖ E ‖ nonce ‖ ct ‖ tag        (62 bytes more than the plaintext)
 * ```
 *
 * The reader opens it with `shared = x(r·E)`. Any altered byte, or an envelope moved to another
 * owner, reader or name, fails authentication.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type Address, type BytesLike, addressBytes, bytesOf, concat, fixedBytes, randomBytes, utf8 } from './bytes.js';
import { Wallet, addressOfPublicKey } from './keys.js';

/** Version byte of the envelope format. */
export const ENVELOPE_VERSION = 0x01;
/** Bytes an envelope adds to its plaintext: version, ephemeral key, nonce, tag. */
export const ENVELOPE_OVERHEAD_BYTES = 1 + 33 + 12 + 16;
const INFO_PREFIX = 'drover-secret-v1';

function bindings(owner: Address, reader: Address, name: string) {
  const tail = concat(addressBytes(owner), addressBytes(reader), utf8(name));
  return { info: concat(utf8(INFO_PREFIX), tail), aad: concat(Uint8Array.of(ENVELOPE_VERSION), tail) };
}

/**
 * Seals `plaintext` as `owner`'s secret `name` for the reader whose compressed public key is
 * `readerPublicKey` (`drover secrets pubkey`). `ephemeral` and `nonce` are for test vectors only.
 */
export function sealSecret(
  owner: Address,
  name: string,
  readerPublicKey: BytesLike,
  plaintext: BytesLike,
  fixed: { ephemeral?: Wallet; nonce?: Uint8Array } = {},
): Uint8Array {
  const readerKey = fixedBytes(readerPublicKey, 33, 'a compressed public key');
  const reader = addressOfPublicKey(readerKey);
  const ephemeral = fixed.ephemeral ?? Wallet.generate();
  const nonce = fixed.nonce ?? randomBytes(12);
  const ephemeralPublic = ephemeral.publicKey();
  const { info, aad } = bindings(owner, reader, name);
  const key = hkdf(sha256, ephemeral.sharedSecret(readerKey), ephemeralPublic, info, 32);
  const sealed = gcm(key, fixedBytes(nonce, 12, 'a nonce'), aad).encrypt(bytesOf(plaintext));
  return concat(Uint8Array.of(ENVELOPE_VERSION), ephemeralPublic, nonce, sealed);
}

/** Opens an envelope of `owner`'s secret `name` with the reader's key; throws when it does not open. */
export function openSecret(owner: Address, name: string, reader: Wallet, envelope: BytesLike): Uint8Array {
  const bytes = bytesOf(envelope);
  if (bytes.length < ENVELOPE_OVERHEAD_BYTES || bytes[0] !== ENVELOPE_VERSION) {
    throw new Error('not a secret envelope (version 1)');
  }
  const ephemeralPublic = bytes.subarray(1, 34);
  const nonce = bytes.subarray(34, 46);
  const { info, aad } = bindings(owner, reader.address, name);
  try {
    const key = hkdf(sha256, reader.sharedSecret(ephemeralPublic), ephemeralPublic, info, 32);
    return gcm(key, nonce, aad).decrypt(bytes.subarray(46));
  } catch {
    throw new Error('the envelope does not open: altered, or sealed for another reader, owner or name');
  }
}

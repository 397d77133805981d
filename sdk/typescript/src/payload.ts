/**
 * Payloads (`docs/protocol.md`, "Payloads"): what a transaction carries depends on `to`.
 *
 * - an account without code: a value transfer, empty payload;
 * - an actor or a system actor: a Message `{"handler": text, "payload": bytes}`;
 * - `null`: a Deploy `{"code", "init"?, "salt", "manifest"}`;
 * - the actor-upgrades actor `0x…0e`: a Message to `upgrade` whose payload is
 *   `{"code", "actor", "manifest"}`.
 *
 * Each form is a canonical CBOR map; `init` is left out when there is none. A manifest is
 * `{"entitlements": [...]}`, the list possibly empty, in a deploy, an upgrade and a library's
 * `publish` alike (the node also reads the key-less `{}`). A deployed actor's address is
 * `last20(keccak256(sender ‖ salt ‖ keccak256(code)))`.
 */
import { type Address, type BytesLike, addressBytes, bytesOf, concat, toHex } from './bytes.js';
import { decodeCanonical, encodeCanonical, toBytes, toText, type CborValue } from './cbor.js';
import { keccak256 } from './keys.js';

/** The address of system actor number `n` (`0x00…0n`). */
export function systemAddress(n: number): Address {
  return toHex(Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : 0))) as Address;
}

/** The system actors, by the family they serve. */
export const SYSTEM = {
  /** Runner registry (`docs/runners.md`). */
  runnerRegistry: systemAddress(0x01),
  /** Job dispatcher (`docs/runners.md`). */
  jobDispatcher: systemAddress(0x02),
  /** Secrets (`docs/secrets.md`). */
  secrets: systemAddress(0x04),
  /** Governance (`docs/governance.md`). */
  governance: systemAddress(0x09),
  /** Storage manager (`docs/storage.md`). */
  storageManager: systemAddress(0x0a),
  /** Relay registry (`docs/storage.md`). */
  relayRegistry: systemAddress(0x0b),
  /** Native tokens (`docs/tokens.md`). */
  tokens: systemAddress(0x0c),
  /** Account libraries (`docs/libraries.md`). */
  libraries: systemAddress(0x0d),
  /** Actor upgrades. */
  actorUpgrades: systemAddress(0x0e),
} as const;

/** Longest deploy salt, in bytes. */
export const MAX_SALT_BYTES = 32;

/** A call of `handler` with its argument bytes. */
export interface Message {
  handler: string;
  payload: BytesLike;
}

/**
 * The entitlements an actor or a library is granted: their ids (`storage.kv`, `econ.transfer`,
 * ...), written `{"entitlements": [...]}`, or the manifest object itself as the node's JSON has
 * it (`{entitlements: [...]}`, or the key-less `{}` that grants nothing, kept as written).
 */
export type Manifest = string[] | { entitlements?: string[] };

/** A deploy: code, manifest, salt (≤ 32 bytes, used as given) and an optional init Message. */
export interface Deploy {
  code: BytesLike;
  manifest?: Manifest;
  salt?: BytesLike;
  init?: Message;
}

/** An upgrade of `actor` to new code and a manifest that may only narrow the current one. */
export interface Upgrade {
  actor: Address;
  code: BytesLike;
  manifest?: Manifest;
}

function messageValue(message: Message): CborValue {
  return { handler: message.handler, payload: bytesOf(message.payload) };
}

/** The entitlement ids of a manifest. */
export function manifestIds(manifest: Manifest = []): string[] {
  return Array.isArray(manifest) ? manifest : (manifest.entitlements ?? []);
}

/** The manifest's CBOR value: `{"entitlements": [...]}` (or `{}` when given so). */
export function manifestValue(manifest: Manifest = []): CborValue {
  if (!Array.isArray(manifest) && manifest.entitlements === undefined) return {};
  return { entitlements: manifestIds(manifest) };
}

/** Canonical `{"handler": text, "payload": bytes}`. */
export function encodeMessage(message: Message): Uint8Array {
  return encodeCanonical(messageValue(message));
}

/** Decodes a Message strictly. */
export function decodeMessage(bytes: Uint8Array): { handler: string; payload: Uint8Array } {
  const value = decodeCanonical(bytes) as Record<string, unknown>;
  if (value === null || typeof value !== 'object' || Object.keys(value).length !== 2) {
    throw new Error('a Message is {"handler", "payload"}');
  }
  return { handler: toText(value.handler, 'handler'), payload: toBytes(value.payload, 'payload') };
}

/** Canonical `{"entitlements": [...]}` (an empty list grants nothing), or `{}` when given so. */
export function encodeManifest(manifest: Manifest): Uint8Array {
  return encodeCanonical(manifestValue(manifest));
}

/** Canonical Deploy payload. */
export function encodeDeploy(deploy: Deploy): Uint8Array {
  const salt = bytesOf(deploy.salt ?? new Uint8Array());
  if (salt.length > MAX_SALT_BYTES) throw new Error(`a salt is at most ${MAX_SALT_BYTES} bytes`);
  const value: Record<string, CborValue> = {
    code: bytesOf(deploy.code),
    salt,
    manifest: manifestValue(deploy.manifest),
  };
  if (deploy.init) value.init = messageValue(deploy.init);
  return encodeCanonical(value);
}

/** Canonical upgrade payload `{"code", "actor", "manifest"}` (the inner payload of the Message). */
export function encodeUpgrade(upgrade: Upgrade): Uint8Array {
  return encodeCanonical({
    code: bytesOf(upgrade.code),
    actor: addressBytes(upgrade.actor),
    manifest: manifestValue(upgrade.manifest),
  });
}

/** The transaction payload of an upgrade: a Message to `upgrade` (send it to {@link SYSTEM.actorUpgrades}). */
export function encodeUpgradeMessage(upgrade: Upgrade): Uint8Array {
  return encodeMessage({ handler: 'upgrade', payload: encodeUpgrade(upgrade) });
}

/** `last20(keccak256(sender ‖ salt ‖ keccak256(code)))`: where `sender`'s deploy lands. */
export function actorAddress(sender: Address, salt: BytesLike, code: BytesLike): Address {
  const digest = keccak256(concat(addressBytes(sender), bytesOf(salt), keccak256(bytesOf(code))));
  return toHex(digest.subarray(12)) as Address;
}

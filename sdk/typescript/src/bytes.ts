/**
 * Byte helpers shared by every module: hex (`0x` optional on input, always written lower-case
 * with `0x`), standard base64 (the API's form of arbitrary bytes) and base64url without padding
 * (the RAS delegation header), big-endian integers and comparisons.
 *
 * Everything here works on `Uint8Array` and runs unchanged in Node.js and browsers (no `Buffer`).
 */

/** 20-byte account, actor or token address, written `0x` + 40 hex digits. */
export type Address = `0x${string}`;
/** 32-byte hash, written `0x` + 64 hex digits. */
export type Hash = `0x${string}`;
/** Anything the SDK accepts as bytes: raw bytes or hex (`0x` optional). */
export type BytesLike = Uint8Array | string;

const HEX = '0123456789abcdef';

/** Lower-case hex of `bytes` with a `0x` prefix. */
export function toHex(bytes: Uint8Array): `0x${string}` {
  let out = '0x';
  for (const b of bytes) out += HEX[b >> 4]! + HEX[b & 15]!;
  return out as `0x${string}`;
}

/** Decodes hex (`0x` optional, any case); throws on odd length or a non-hex digit. */
export function fromHex(text: string): Uint8Array {
  const hex = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (hex.length % 2 !== 0) throw new Error(`hex of odd length: ${text.slice(0, 20)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    const pair = hex.slice(2 * i, 2 * i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw new Error(`not hex: ${text.slice(0, 20)}`);
    out[i] = Number.parseInt(pair, 16);
  }
  return out;
}

/** `value` as bytes: a `Uint8Array` as is, a string as hex. */
export function bytesOf(value: BytesLike): Uint8Array {
  return typeof value === 'string' ? fromHex(value) : value;
}

/** Exactly `length` bytes from `value`, or an error naming `what`. */
export function fixedBytes(value: BytesLike, length: number, what: string): Uint8Array {
  const bytes = bytesOf(value);
  if (bytes.length !== length) throw new Error(`${what} must be ${length} bytes, got ${bytes.length}`);
  return bytes;
}

/** A 20-byte address from hex or bytes. */
export function addressBytes(address: BytesLike): Uint8Array {
  return fixedBytes(address, 20, 'an address');
}

/** The canonical text of an address: `0x` + 40 lower-case hex digits. */
export function normalizeAddress(address: BytesLike): Address {
  return toHex(addressBytes(address)) as Address;
}

/** A 32-byte hash from hex or bytes. */
export function hashBytes(hash: BytesLike): Uint8Array {
  return fixedBytes(hash, 32, 'a hash');
}

/** Concatenation of byte arrays. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Whether two byte arrays hold the same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytewise comparison: negative, zero or positive like `Array.prototype.sort` wants. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `value` as `width` big-endian bytes; throws when it does not fit. */
export function uintBE(value: bigint | number, width: number): Uint8Array {
  let v = BigInt(value);
  if (v < 0n || v >= 1n << BigInt(8 * width)) throw new Error(`${value} does not fit in ${width} bytes`);
  const out = new Uint8Array(width);
  for (let i = width - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Big-endian bytes as an unsigned integer. */
export function readUintBE(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding (the API's form of arbitrary bytes). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return out;
}

/** Decodes standard base64 with padding, as the API writes it. */
export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error('base64 of a length that is not a multiple of 4');
  return decodeBase64(text.replace(/={1,2}$/, ''), B64);
}

/** Decodes base64url without padding (the RAS delegation header). */
export function fromBase64Url(text: string): Uint8Array {
  return decodeBase64(text, B64.slice(0, 62) + '-_');
}

function decodeBase64(body: string, alphabet: string): Uint8Array {
  if (body.length % 4 === 1) throw new Error('not base64');
  const out = new Uint8Array(Math.floor((body.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let at = 0;
  for (const ch of body) {
    const v = alphabet.indexOf(ch);
    if (v < 0) throw new Error(`not base64: ${JSON.stringify(ch)}`);
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** base64url without padding (RFC 4648 §5), the form of the RAS delegation header. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Cryptographically random bytes (Web Crypto, in Node.js 20+ and browsers). */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  globalThis.crypto.getRandomValues(out);
  return out;
}

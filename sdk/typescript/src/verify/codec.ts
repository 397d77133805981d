/**
 * A reader of the Commonware codec (`commonware-codec` 2026.10.0), the binary form of block
 * headers, finalization certificates and QMDB/BMT proofs: fixed-width integers big-endian,
 * `u64`/`usize` lengths and locations as canonical LEB128 varints (a trailing zero byte or bits past
 * the width are refused), `bool` as one byte 0/1, `Option` as a `bool` then the value.
 *
 * Every read checks the bytes left, so a hostile proof fails with an error instead of reading
 * past its end; {@link Reader.finish} refuses trailing bytes.
 */

export class CodecError extends Error {}

export class Reader {
  #at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.bytes.length - this.#at;
  }

  /** The next `n` bytes. */
  take(n: number): Uint8Array {
    if (n < 0 || n > this.remaining) throw new CodecError('end of buffer');
    const out = this.bytes.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }

  u8(): number {
    return this.take(1)[0]!;
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new CodecError(`invalid bool ${b}`);
    return b === 1;
  }

  /** A fixed-width big-endian unsigned integer of `bytes` bytes. */
  uintBE(bytes: number): bigint {
    let v = 0n;
    for (const b of this.take(bytes)) v = (v << 8n) | BigInt(b);
    return v;
  }

  /** A canonical LEB128 varint of at most `bits` bits (64 for u64, 32 for usize lengths). */
  varint(bits = 64): bigint {
    let result = 0n;
    let read = 0;
    for (;;) {
      const byte = this.u8();
      if (byte === 0 && read > 0) throw new CodecError('non-canonical varint');
      const remaining = bits - read;
      if (remaining <= 7 && 8 - Math.clz32(byte) + 24 > remaining) throw new CodecError('varint overflow');
      result |= BigInt(byte & 0x7f) << BigInt(read);
      if ((byte & 0x80) === 0) return result;
      read += 7;
    }
  }

  /** A collection length (a `usize`, written as a u32 varint) of at most `max`. */
  length(max: number): number {
    const n = this.varint(32);
    if (n > BigInt(max)) throw new CodecError(`length ${n} above ${max}`);
    return Number(n);
  }

  /** Refuses bytes left over. */
  finish(): void {
    if (this.remaining !== 0) throw new CodecError(`${this.remaining} bytes of extra data`);
  }
}

/** LEB128 encoding of an unsigned integer (for hash pre-images that embed a varint). */
export function varintBytes(value: bigint): Uint8Array {
  const out: number[] = [];
  let v = value;
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? byte : byte | 0x80);
  } while (v !== 0n);
  return Uint8Array.from(out);
}

//! Structured values built from fuzzer bytes, for the round-trip properties: whatever an encoder
//! writes must decode back to the same value (and, encodings being canonical, the decoder must
//! accept it).

use arbitrary::{Result, Unstructured};
use drover_types::Address;
use drover_types::cbor::Writer;
use drover_types::payload::{Deploy, MAX_SALT_BYTES, Manifest, Message, Upgrade};
use drover_types::transaction::{Signature, Transaction};

/// A `u128` that lands on the encoding boundaries often (plain integer widths, tag 2 widths).
pub fn amount(u: &mut Unstructured<'_>) -> Result<u128> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => u128::from(u.arbitrary::<u8>()?),
        1 => u128::from(u.arbitrary::<u64>()?),
        2 => u128::from(u64::MAX) + u128::from(u.arbitrary::<u16>()?),
        _ => u.arbitrary()?,
    })
}

pub fn transaction(u: &mut Unstructured<'_>) -> Result<Transaction> {
    Ok(Transaction {
        chain_id: u.arbitrary()?,
        nonce: u.arbitrary()?,
        to: u.arbitrary::<Option<[u8; 20]>>()?.map(Address),
        value: amount(u)?,
        cycles_limit: u.arbitrary()?,
        cells_limit: u.arbitrary()?,
        max_fee_per_cycle: amount(u)?,
        max_fee_per_cell: amount(u)?,
        tip_per_cycle: amount(u)?,
        tip_per_cell: amount(u)?,
        payload: u.arbitrary()?,
        signature: if u.arbitrary()? {
            Some(Signature {
                y_parity: u.int_in_range(0..=1)?,
                r: u.arbitrary()?,
                s: u.arbitrary()?,
            })
        } else {
            None
        },
    })
}

pub fn message(u: &mut Unstructured<'_>) -> Result<Message> {
    Ok(Message {
        handler: u.arbitrary()?,
        payload: u.arbitrary()?,
    })
}

/// Either form: DESIGN's `{"entitlements": [...]}` (any length) or the key-less `{}`.
pub fn manifest(u: &mut Unstructured<'_>) -> Result<Manifest> {
    Ok(if u.arbitrary()? { Manifest::new(u.arbitrary()?) } else { Manifest::default() })
}

pub fn deploy(u: &mut Unstructured<'_>) -> Result<Deploy> {
    let salt_len = u.int_in_range(0..=MAX_SALT_BYTES)?;
    Ok(Deploy {
        code: u.arbitrary()?,
        manifest: manifest(u)?,
        salt: u.bytes(salt_len)?.to_vec(),
        init: if u.arbitrary()? { Some(message(u)?) } else { None },
    })
}

pub fn upgrade(u: &mut Unstructured<'_>) -> Result<Upgrade> {
    Ok(Upgrade {
        actor: Address(u.arbitrary()?),
        code: u.arbitrary()?,
        manifest: manifest(u)?,
    })
}

/// Encodes one CBOR item of the kinds [`Writer`] can write, nested at most `depth` more levels;
/// map keys are sorted by their encoded bytes and unique, as the writer's contract asks.
pub fn cbor_item(u: &mut Unstructured<'_>, depth: usize) -> Result<Vec<u8>> {
    let mut w = Writer::new(Vec::new());
    let kinds = if depth == 0 { 4 } else { 6 };
    match u.int_in_range(0..=kinds - 1)? {
        0 => {
            w.u128(amount(u)?);
        }
        1 => {
            w.bytes(u.arbitrary::<&[u8]>()?);
        }
        2 => {
            w.text(u.arbitrary::<&str>()?);
        }
        3 => {
            w.null();
        }
        4 => {
            let len = u.int_in_range(0..=8u64)?;
            w.array(len);
            let mut out = w.into_inner();
            for _ in 0..len {
                out.extend(cbor_item(u, depth - 1)?);
            }
            return Ok(out);
        }
        _ => {
            let mut entries = Vec::new();
            for _ in 0..u.int_in_range(0..=8)? {
                entries.push((cbor_item(u, 0)?, cbor_item(u, depth - 1)?));
            }
            entries.sort();
            entries.dedup_by(|a, b| a.0 == b.0);
            w.map(entries.len() as u64);
            let mut out = w.into_inner();
            for (key, value) in entries {
                out.extend(key);
                out.extend(value);
            }
            return Ok(out);
        }
    }
    Ok(w.into_inner())
}

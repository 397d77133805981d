//! Timer records under `0x05`, laid out so that the timers due at a height are found by point
//! reads alone.
//!
//! - [`TimerRecord`] at `0x05 ‖ 0x02 ‖ height(8, BE) ‖ seq(4, BE)`: the `seq`-th timer scheduled
//!   for `height` (FIFO within a height is ascending `seq`). A cancelled or fired timer's key is
//!   deleted; its sequence number is not reused.
//! - a count (CBOR uint) at `0x05 ‖ 0x01 ‖ height(8, BE)`: how many timers were ever scheduled
//!   for that height (the next `seq`).
//! - [`TimerCursor`] `[height, seq]` at `0x05 ‖ 0x00`: where the previous block stopped firing
//!   when it hit its per-block bound. Absent means no timer below the next block's height is
//!   pending.
//! - a count (CBOR uint) at `0x05 ‖ 0x03 ‖ spread14(owner) ‖ owner`: the owner's pending timers
//!   (the cap), which is also the count of the owner's timer listing.
//! - the owner's timer listing ([`crate::keys::timers_listing`], see [`crate::listing`]): the
//!   pending timers' ids in numbered slots, at `0x05 ‖ 0x05 ‖ spread14(user key) ‖ user key`, so
//!   that a page of an actor's timers is point lookups at any offset. `0x05 ‖ 0x04` is retired
//!   (it held per-timer index markers, which could only be paged by reading every earlier one).
//!
//! A timer id is `height << 32 | seq`, so it names its key.

use crate::RecordError;
use drover_types::{
    Address,
    cbor::{Writer, decode_fixed, decode_strict, expect_array},
};

/// A pending one-shot timer (its height and sequence number are in its key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerRecord {
    /// The actor that scheduled it; it runs the handler and pays for it.
    pub owner: Address,
    /// Name of the owner's handler to run when the timer fires.
    pub handler: String,
    /// Input bytes passed to the handler.
    pub payload: Vec<u8>,
    /// Cycles budget of the handler's run, paid by the owner when the timer fires.
    pub cycles_limit: u64,
}

impl TimerRecord {
    /// Canonical CBOR `[owner, handler, payload, cycles_limit]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.handler.len() + self.payload.len() + 48);
        w.array(4).bytes(&self.owner.0).text(&self.handler).bytes(&self.payload).uint(self.cycles_limit);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one timer record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            Ok(TimerRecord {
                owner: Address(decode_fixed(d)?),
                handler: d.str()?.to_owned(),
                payload: d.bytes()?.to_vec(),
                cycles_limit: d.u64()?,
            })
        })?)
    }
}

/// The next timer to consider: at `height`, from sequence number `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerCursor {
    /// Height whose timers are next to fire.
    pub height: u64,
    /// Sequence number, within `height`, of the first timer not yet fired.
    pub seq: u32,
}

impl TimerCursor {
    /// Canonical CBOR `[height, seq]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(15);
        w.array(2).uint(self.height).uint(u64::from(self.seq));
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one cursor record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            Ok(TimerCursor { height: d.u64()?, seq: d.u32()? })
        })?)
    }
}

/// The id of the `seq`-th timer at `height`, or `None` if the height does not fit in 32 bits.
pub fn timer_id(height: u64, seq: u32) -> Option<u64> {
    (height <= u64::from(u32::MAX)).then(|| (height << 32) | u64::from(seq))
}

/// The height and sequence number a timer id names.
pub fn timer_id_parts(id: u64) -> (u64, u32) {
    (id >> 32, id as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode_count, encode_count};

    #[test]
    fn records_round_trip() {
        let timer =
            TimerRecord { owner: Address([4; 20]), handler: "ring".into(), payload: Vec::new(), cycles_limit: 500_000 };
        assert_eq!(TimerRecord::decode(&timer.encode()), Ok(timer));
        let cursor = TimerCursor { height: 77, seq: 3 };
        assert_eq!(TimerCursor::decode(&cursor.encode()), Ok(cursor));
        for count in [0, 1, 1_024, u64::MAX] {
            assert_eq!(decode_count(&encode_count(count)), Ok(count));
        }
        assert!(decode_count(&[0x18, 0x01]).is_err(), "non-canonical");
        assert!(TimerCursor::decode(&[0x82, 0x01, 0x1b, 0, 0, 0, 1, 0, 0, 0, 0]).is_err());
    }

    #[test]
    fn timer_ids_name_height_and_sequence() {
        let id = timer_id(10, 7).unwrap();
        assert_eq!(timer_id_parts(id), (10, 7));
        assert_eq!(timer_id(u64::from(u32::MAX) + 1, 0), None);
    }
}

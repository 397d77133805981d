//! Alarm: a timer that rings, and a note through the mailbox when it does. Manifest:
//! `storage.kv`, `timer.schedule`, `mailbox.send`. The actor pays for both from its balance.
//!
//! - `arm(height: u64 LE [++ peer: 20 bytes])` schedules `ring` at `height`; answers the timer id.
//! - `disarm` cancels the armed timer; answers 1 if one was pending, else 0 (one byte).
//! - `ring` (the timer) records the height it fired at and sends `noted` to the peer (this actor
//!   when none was given), delivered with the block's mailbox deliveries.
//! - `noted` records the height it was delivered at and who sent it.
//! - `status` answers `rang_at` ++ `noted_at` (u64 LE each, 0 until it happened) ++ the sender of
//!   the last note (20 bytes, zeros until then).
#![no_std]
extern crate alloc;

use alloc::{vec, vec::Vec};
use drover_actor_sdk::{
    Address, HandlerResult, Revert, block_height, caller, handlers, self_address, send, storage, timer,
};

// A no_std actor brings its own allocator (natively, the tests use std's).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

/// Cycles the timer buys for `ring` (at most the chain's `max_attached_cycles`).
const RING_CYCLES: u64 = 500_000;
/// Cycles the note buys for `noted`.
const NOTE_CYCLES: u64 = 200_000;

handlers! {
    fn arm(input: &[u8]) -> HandlerResult {
        let (height, peer) = match input.len() {
            8 => (&input[..8], &[][..]),
            28 => input.split_at(8),
            _ => return Err("expected height (u64 LE) [++ peer (20 bytes)]".into()),
        };
        let height = u64::from_le_bytes(height.try_into().map_err(|_| Revert::from("bad height"))?);
        let id = timer::schedule(height, "ring", peer, RING_CYCLES);
        storage::set_u64(b"timer", id);
        Ok(id.to_le_bytes().to_vec())
    }

    fn disarm(_input: &[u8]) -> HandlerResult {
        let armed = storage::get(b"timer").is_some();
        let cancelled = armed && timer::cancel(storage::get_u64(b"timer"));
        storage::remove(b"timer");
        Ok(vec![u8::from(cancelled)])
    }

    fn ring(input: &[u8]) -> HandlerResult {
        if caller() != self_address() {
            return Err("only the timer rings".into());
        }
        let height = block_height();
        storage::set_u64(b"rang_at", height);
        storage::remove(b"timer");
        let peer = if input.is_empty() {
            self_address()
        } else {
            Address(input.try_into().map_err(|_| Revert::from("bad peer"))?)
        };
        send(&peer, "noted", &height.to_le_bytes(), 0, NOTE_CYCLES);
        Ok(Vec::new())
    }

    fn noted(_input: &[u8]) -> HandlerResult {
        storage::set_u64(b"noted_at", block_height());
        storage::set(b"noted_from", &caller().0);
        Ok(Vec::new())
    }

    fn status(_input: &[u8]) -> HandlerResult {
        let mut out = storage::get_u64(b"rang_at").to_le_bytes().to_vec();
        out.extend(storage::get_u64(b"noted_at").to_le_bytes());
        out.extend(storage::get(b"noted_from").unwrap_or_else(|| vec![0; 20]));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_actor_sdk::mock::{self, Sent, Timer};

    const ME: Address = Address([3; 20]);

    #[test]
    fn the_timer_rings_and_sends_a_note_that_is_recorded() {
        mock::reset();
        mock::with(|env| {
            env.self_address = ME;
            env.block_height = 10;
        });
        let id = mock::run(arm, &20u64.to_le_bytes()).unwrap();
        let pending = mock::with(|env| env.timers.get(&u64::from_le_bytes(id.try_into().unwrap())).cloned());
        let ring_timer = Timer { height: 20, handler: "ring".into(), payload: vec![], cycles: RING_CYCLES };
        assert_eq!(pending, Some(ring_timer));

        mock::with(|env| {
            env.caller = ME;
            env.block_height = 20;
        });
        assert_eq!(mock::run(ring, b""), Ok(vec![]));
        let note = Sent {
            to: ME,
            handler: "noted".into(),
            payload: 20u64.to_le_bytes().to_vec(),
            value: 0,
            cycles: NOTE_CYCLES,
        };
        assert_eq!(mock::with(|env| env.sent.clone()), [note]);

        mock::with(|env| env.block_height = 21);
        assert_eq!(mock::run(noted, &20u64.to_le_bytes()), Ok(vec![]));
        let status = mock::run(status, b"").unwrap();
        assert_eq!(status, [&20u64.to_le_bytes()[..], &21u64.to_le_bytes(), &ME.0].concat());
    }

    #[test]
    fn only_the_timer_rings_and_disarm_cancels() {
        mock::reset();
        mock::with(|env| env.self_address = ME);
        assert_eq!(mock::run(ring, b""), Err(b"only the timer rings".to_vec()));
        assert_eq!(mock::run(disarm, b""), Ok(vec![0]));
        mock::run(arm, &[&9u64.to_le_bytes()[..], &[4; 20]].concat()).unwrap();
        assert_eq!(mock::run(disarm, b""), Ok(vec![1]));
        assert!(mock::with(|env| env.timers.is_empty()));
        assert_eq!(mock::run(arm, b"x"), Err(b"expected height (u64 LE) [++ peer (20 bytes)]".to_vec()));
    }
}

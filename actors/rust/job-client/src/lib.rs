//! Job client: buys off-chain work from the runners (`docs/runners.md`) and keeps the answer the
//! dispatcher calls back with. Manifest: `storage.kv`, `job.submit`.
//!
//! - `submit(max_price: u128 LE ++ input)` submits an `echo` job of `input` to one runner at
//!   `max_price`, with the value sent along as its escrow (it must cover the price and the
//!   callback's budget); answers the 32-byte job id, also kept under `job`.
//! - `on_job` is the dispatcher's callback: it keeps the payload (`{job_id, result, status}`,
//!   canonical CBOR) under `answer`, and refuses anyone but the dispatcher.
//! - `answer` answers that payload, or reverts while there is none.
#![no_std]
extern crate alloc;

use alloc::vec::Vec;
use drover_actor_sdk::{
    HandlerResult, JOB_DISPATCHER, Revert, args::Args, caller, handlers, job_submit, storage, value_received,
};

// A no_std actor brings its own allocator (natively, the tests use std's).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

/// Blocks the runners have to answer before the job fails.
const TIMEOUT_BLOCKS: u128 = 50;
/// Cycles the escrow buys for the callback (at most the chain's `max_callback_cycles`).
const CALLBACK_CYCLES: u128 = 200_000;

/// The dispatcher's `submit` arguments for one runner echoing `input`.
fn echo_job(input: &[u8], max_price: u128) -> Vec<u8> {
    Args::new()
        .text("job_type", "echo")
        .bytes("input", input)
        .uint("runners", 1)
        .map("verification", Args::new().text("mode", "none"))
        .uint("max_price", max_price)
        .uint("timeout_blocks", TIMEOUT_BLOCKS)
        .map("callback", Args::new().text("handler", "on_job").uint("cycles", CALLBACK_CYCLES))
        .encode()
}

handlers! {
    fn submit(input: &[u8]) -> HandlerResult {
        if input.len() < 16 {
            return Err("expected max_price (u128 LE) ++ input".into());
        }
        let (price, job_input) = input.split_at(16);
        let max_price = u128::from_le_bytes(price.try_into().map_err(|_| Revert::from("bad price"))?);
        let job = job_submit(&echo_job(job_input, max_price), value_received(), 0).into_result()?;
        storage::set(b"job", &job);
        Ok(job)
    }

    fn on_job(input: &[u8]) -> HandlerResult {
        if caller() != JOB_DISPATCHER {
            return Err("not the dispatcher".into());
        }
        storage::set(b"answer", input);
        Ok(Vec::new())
    }

    fn answer(_input: &[u8]) -> HandlerResult {
        storage::get(b"answer").ok_or_else(|| "no answer yet".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::{boxed::Box, vec};
    use drover_actor_sdk::{Address, mock};

    #[test]
    fn submits_with_the_value_as_escrow_and_keeps_the_dispatchers_answer() {
        mock::reset();
        mock::with(|env| {
            env.value = 5_000;
            env.on_call = Some(Box::new(|to, handler, payload, escrow| {
                assert_eq!((to, handler, escrow), (JOB_DISPATCHER, "submit", 5_000));
                assert_eq!(payload, echo_job(b"hi", 1_000));
                (0, vec![9; 32])
            }));
        });
        let input = [&1_000u128.to_le_bytes()[..], b"hi"].concat();
        assert_eq!(mock::run(submit, &input), Ok(vec![9; 32]));
        assert_eq!(mock::with(|env| env.storage.get(&b"job"[..]).cloned()), Some(vec![9; 32]));

        assert_eq!(mock::run(answer, b""), Err(b"no answer yet".to_vec()));
        mock::with(|env| env.caller = Address([6; 20]));
        assert_eq!(mock::run(on_job, b"forged"), Err(b"not the dispatcher".to_vec()));
        mock::with(|env| env.caller = JOB_DISPATCHER);
        assert_eq!(mock::run(on_job, b"payload"), Ok(vec![]));
        assert_eq!(mock::run(answer, b""), Ok(b"payload".to_vec()));
    }

    #[test]
    fn a_refused_submission_reverts_with_the_dispatchers_reason() {
        mock::reset();
        mock::with(|env| env.on_call = Some(Box::new(|_, _, _, _| (2, b"E1610: escrow too small".to_vec()))));
        let input = [&1_000u128.to_le_bytes()[..], b"hi"].concat();
        assert_eq!(mock::run(submit, &input), Err(b"E1610: escrow too small".to_vec()));
        assert_eq!(mock::run(submit, b"short"), Err(b"expected max_price (u128 LE) ++ input".to_vec()));
    }
}

//! The SDK against its native mock: handlers exported by the macro, every wrapper's round trip
//! through the raw ABI, reverts.

extern crate std;

use crate::*;
use alloc::{borrow::ToOwned, vec};
use mock::{Sent, Timer};

handlers! {
    /// A counter, as an actor would write it.
    fn increment(_input: &[u8]) -> HandlerResult {
        let next = storage::get_u64(b"count") + 1;
        storage::set_u64(b"count", next);
        Ok(next.to_le_bytes().to_vec())
    }

    fn echo(input: &[u8]) -> HandlerResult {
        emit(b"echo", input);
        Ok(input.to_vec())
    }

    fn withdraw(input: &[u8]) -> HandlerResult {
        let amount = u64::from_le_bytes(input.try_into().map_err(|_| Revert::from("bad input"))?);
        let balance = storage::get_u64(b"balance");
        if amount > balance {
            return Err("insufficient balance".into());
        }
        storage::set_u64(b"balance", balance - amount);
        Ok(vec![])
    }

    fn whoami(_input: &[u8]) -> HandlerResult {
        let mut out = caller().0.to_vec();
        out.extend(self_address().0);
        out.extend(origin().0);
        out.extend(block_height().to_le_bytes());
        out.extend(timestamp_ms().to_le_bytes());
        out.extend(value_received().to_le_bytes());
        out.extend(cycles_left().to_le_bytes());
        Ok(out)
    }
}

#[test]
fn macro_exports_handlers_that_read_input_and_set_results() {
    mock::reset();
    for expected in 1..=3u64 {
        assert_eq!(mock::run(increment, b""), Ok(expected.to_le_bytes().to_vec()));
    }
    assert_eq!(mock::run(echo, b"hi"), Ok(b"hi".to_vec()));
    mock::with(|env| {
        assert_eq!(env.storage.get(&b"count"[..]), Some(&3u64.to_le_bytes().to_vec()));
        assert_eq!(env.events, [(b"echo".to_vec(), b"hi".to_vec())]);
    });
}

#[test]
fn errors_revert_with_their_reason() {
    mock::reset();
    mock::with(|env| {
        env.storage.insert(b"balance".to_vec(), 10u64.to_le_bytes().to_vec());
    });
    assert_eq!(mock::run(withdraw, &4u64.to_le_bytes()), Ok(vec![]));
    assert_eq!(mock::run(withdraw, &7u64.to_le_bytes()), Err(b"insufficient balance".to_vec()));
    assert_eq!(mock::run(withdraw, b"x"), Err(b"bad input".to_vec()));
    assert_eq!(storage::get_u64(b"balance"), 6);
}

#[test]
fn context_wrappers_read_the_host() {
    mock::reset();
    mock::with(|env| {
        env.caller = Address([1; 20]);
        env.self_address = Address([2; 20]);
        env.origin = Address([3; 20]);
        env.block_height = 77;
        env.timestamp_ms = 77_000;
        env.value = u128::MAX;
        env.cycles_left = 5;
    });
    let out = mock::run(whoami, b"").unwrap();
    assert_eq!(&out[..20], &[1; 20]);
    assert_eq!(&out[20..40], &[2; 20]);
    assert_eq!(&out[40..60], &[3; 20]);
    assert_eq!(&out[60..68], &77u64.to_le_bytes());
    assert_eq!(&out[68..76], &77_000u64.to_le_bytes());
    assert_eq!(&out[76..92], &u128::MAX.to_le_bytes());
    assert_eq!(&out[92..100], &5u64.to_le_bytes());
}

#[test]
fn storage_round_trips_large_values_and_iterates_a_prefix() {
    mock::reset();
    let big = vec![9u8; 1000];
    storage::set(b"big", &big);
    assert_eq!(storage::get(b"big"), Some(big.clone()));
    assert_eq!(storage::get(b"none"), None);
    storage::set(b"a:2", b"two");
    storage::set(b"a:1", b"one");
    storage::set(b"a:3", &big);
    storage::set(b"b:1", b"other");
    let entries: alloc::vec::Vec<_> = storage::iter(b"a:").collect();
    assert_eq!(
        entries,
        [(b"a:1".to_vec(), b"one".to_vec()), (b"a:2".to_vec(), b"two".to_vec()), (b"a:3".to_vec(), big),]
    );
    assert_eq!(storage::iter(b"c").count(), 0);
    assert!(storage::remove(b"a:1"));
    assert!(!storage::remove(b"a:1"));
    assert_eq!(storage::iter(b"").count(), 4);
}

#[test]
fn value_messages_calls_and_timers_reach_the_host() {
    mock::reset();
    let me = Address([2; 20]);
    let peer = Address([8; 20]);
    mock::with(|env| {
        env.self_address = me;
        env.balances.insert(me, 100);
        env.on_call = Some(alloc::boxed::Box::new(|to, handler, payload, value| match handler {
            "ok" => (0, [&to.0[..1], payload, &[value as u8]].concat()),
            "no" => (1, b"nope".to_vec()),
            _ => (2, b"E1205: no handler".to_vec()),
        }));
    });
    transfer(&peer, 40);
    assert_eq!(balance_of(&me), 60);
    assert_eq!(balance_of(&peer), 40);

    send(&peer, "pong", b"p", 3, 1_000);
    assert_eq!(
        mock::with(|env| env.sent.clone()),
        [Sent { to: peer, handler: "pong".to_owned(), payload: b"p".to_vec(), value: 3, cycles: 1_000 }]
    );

    assert_eq!(call(&peer, "ok", b"x", 5, 0), CallResult::Success(vec![8, b'x', 5]));
    assert_eq!(call(&peer, "no", b"", 0, 0), CallResult::Reverted(b"nope".to_vec()));
    assert_eq!(call(&peer, "zzz", b"", 0, 0), CallResult::Failed(b"E1205: no handler".to_vec()));
    assert_eq!(return_data(), b"E1205: no handler");

    let id = timer::schedule(50, "ring", b"r", 9);
    assert_eq!(
        mock::with(|env| env.timers.get(&id).cloned()),
        Some(Timer { height: 50, handler: "ring".to_owned(), payload: b"r".to_vec(), cycles: 9 })
    );
    assert!(timer::cancel(id));
    assert!(!timer::cancel(id));
}

#[test]
fn argument_maps_are_the_bytes_the_node_writes() {
    use drover_types::args::ArgsBuilder;
    let token = Address([7; 20]);
    let to = Address([9; 20]);
    for amount in [0, 23, 24, 255, 256, 65_536, u64::MAX as u128, u64::MAX as u128 + 1, u128::MAX] {
        let ours = args::Args::new().address("to", &to).uint("amount", amount).address("token", &token).encode();
        let node = ArgsBuilder::new()
            .address("token", &drover_types::Address(token.0))
            .address("to", &drover_types::Address(to.0))
            .u128("amount", amount)
            .encode();
        assert_eq!(ours, node, "amount {amount}");
        let decoded = drover_types::args::Args::decode(&ours).unwrap();
        assert_eq!(decoded.u128("amount").unwrap(), amount);
        let mut answer = drover_types::cbor::Writer::with_capacity(24);
        answer.u128(amount);
        assert_eq!(args::decode_uint(&answer.into_inner()), Some(amount));
    }
    let nested = args::Args::new()
        .text("job_type", "echo")
        .bytes("input", b"hi")
        .bool("flag", true)
        .map("verification", args::Args::new().text("mode", "none"))
        .text("job_type", "wasm")
        .encode();
    let node = ArgsBuilder::new()
        .text("job_type", "wasm")
        .bytes("input", b"hi")
        .bool("flag", true)
        .map("verification", ArgsBuilder::new().text("mode", "none"))
        .encode();
    assert_eq!(nested, node);
    for bad in [&[][..], &[0x18], &[0x01, 0x00], &[0x61, b'a'], &[0xc2, 0x51, 0], &[0xc3, 0x41, 1]] {
        assert_eq!(args::decode_uint(bad), None, "{bad:?}");
    }
}

#[test]
fn token_helpers_call_the_tokens_actor_and_revert_with_its_answer() {
    use alloc::string::String;
    mock::reset();
    let calls = alloc::rc::Rc::new(core::cell::RefCell::new(alloc::vec::Vec::new()));
    let seen = calls.clone();
    mock::with(|env| {
        env.on_call = Some(alloc::boxed::Box::new(move |to, handler, payload, value| {
            seen.borrow_mut().push((to, String::from(handler), payload.to_vec(), value));
            match handler {
                "balance" => (0, alloc::vec![0x19, 0x01, 0x00]),
                "transfer" => (2, b"E1402: short".to_vec()),
                _ => (0, vec![]),
            }
        }));
    });
    let token = Address([5; 20]);
    assert_eq!(tokens::balance(&token, &Address([1; 20])), Ok(256));
    assert_eq!(tokens::transfer(&token, &Address([2; 20]), 3), Err(Revert(b"E1402: short".to_vec())));
    assert_eq!(tokens::approve(&token, &Address([2; 20]), 3), Ok(()));
    let calls = calls.borrow();
    assert!(calls.iter().all(|(to, _, _, value)| *to == tokens::TOKENS && *value == 0));
    let expected = drover_types::args::ArgsBuilder::new()
        .address("token", &drover_types::Address(token.0))
        .address("account", &drover_types::Address([1; 20]))
        .encode();
    assert_eq!(calls[0].2, expected);
}

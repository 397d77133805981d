//! Every example actor of `actors/` against `MockHost`: behaviour of the well-behaved ones and
//! the limits that stop the hostile ones.

mod common;

use common::*;
use drover_types::exec_error::ExecCode;
use drover_vm::{Entitlement::*, Status, limits::*, validate};

#[test]
fn counter_increments_and_reads() {
    let mut host = host_with("counter", 1, &[StorageKv]);
    for expected in 1..=3u64 {
        let outcome = host.call_actor(addr(1), "increment", b"");
        assert_success(&outcome);
        assert_eq!(u64_le(&outcome.result), expected);
        assert_eq!(outcome.cells_used, 5 + 8, "key and value bytes");
    }
    let get = host.call_actor(addr(1), "get", b"");
    assert_success(&get);
    assert_eq!(u64_le(&get.result), 3);
    assert_eq!(get.cells_used, 0);
    assert_eq!(host.storage(addr(1), b"count"), Some(&3u64.to_le_bytes()[..]));
}

#[test]
fn missing_handler_is_its_own_error() {
    let mut host = host_with("counter", 1, &[StorageKv]);
    let outcome = host.call_actor(addr(1), "decrement", b"");
    assert_eq!(trap_code(&outcome), ExecCode::HandlerNotFound);
    assert!(outcome.cycles_used > 0);
}

#[test]
fn ledger_mints_transfers_and_reverts() {
    let mut host = host_with("ledger", 2, &[StorageKv]);
    let alice = addr(0xa1);
    let bob = addr(0xb0);
    let args = |to: drover_types::Address, amount: u64| [&to.0[..], &amount.to_le_bytes()].concat();

    let mut mint = host.request(addr(2), "mint", &args(alice, 100));
    mint.context.caller = alice;
    assert_success(&host.run(mint.clone()));

    let mut send = host.request(addr(2), "transfer", &args(bob, 30));
    send.context.caller = alice;
    assert_success(&host.run(send.clone()));

    let balance = |host: &mut drover_vm::MockHost, who: drover_types::Address| {
        let outcome = host.call_actor(addr(2), "balance_of", &who.0);
        assert_success(&outcome);
        u64_le(&outcome.result)
    };
    assert_eq!(balance(&mut host, alice), 70);
    assert_eq!(balance(&mut host, bob), 30);

    // Bob cannot send more than he has; nothing changes.
    let before = host.state.clone();
    let mut overdraw = host.request(addr(2), "transfer", &args(alice, 31));
    overdraw.context.caller = bob;
    let outcome = host.run(overdraw);
    assert_eq!(outcome.status, Status::Revert { reason: b"insufficient balance".to_vec() });
    assert_eq!(outcome.error().map(|e| e.code), Some(ExecCode::Reverted));
    assert_eq!(host.state, before);

    // Only the owner (the first minter) mints.
    let mut theft = host.request(addr(2), "mint", &args(bob, 1));
    theft.context.caller = bob;
    assert_eq!(host.run(theft).status, Status::Revert { reason: b"not owner".to_vec() });
    let bad = host.call_actor(addr(2), "balance_of", b"short");
    assert_eq!(bad.status, Status::Revert { reason: b"bad input".to_vec() });
}

#[test]
fn echo_returns_input_and_emits_it() {
    let mut host = host_with("echo", 3, &[EventsEmit]);
    let outcome = host.call_actor(addr(3), "echo", b"hello, drover");
    assert_success(&outcome);
    assert_eq!(outcome.result, b"hello, drover");
    assert_eq!(outcome.cells_used, (4 + 13) as u64);
    assert_eq!(host.state.events, vec![(addr(3), b"echo".to_vec(), b"hello, drover".to_vec())]);
    // The event data bound applies to what the echo emits; the payload bound is checked
    // before the actor runs.
    let fits = vec![7u8; MAX_EVENT_DATA_BYTES];
    let outcome = host.call_actor(addr(3), "echo", &fits);
    assert_success(&outcome);
    assert_eq!(outcome.result, fits);
    let too_much_data = vec![7u8; MAX_EVENT_DATA_BYTES + 1];
    assert_eq!(trap_code(&host.call_actor(addr(3), "echo", &too_much_data)), ExecCode::HostCallArgument);
    let over = vec![7u8; MAX_PAYLOAD_BYTES + 1];
    assert_eq!(trap_code(&host.call_actor(addr(3), "echo", &over)), ExecCode::PayloadTooLarge);
    assert_eq!(host.state.events.len(), 2, "failed calls leave no events");
}

#[test]
fn pinger_plays_ping_pong_through_the_mailbox() {
    let ents = [StorageKv, MailboxSend];
    let mut host = host_with("pinger", 0x0a, &ents);
    host.deploy(addr(0x0b), &actor("pinger"), grant(&ents)).unwrap();
    assert_success(&host.call_actor(addr(0x0a), "start", &addr(0x0b).0));
    assert_eq!(host.state.mailbox.len(), 1);
    let mut rounds = 0;
    while !host.state.mailbox.is_empty() {
        for outcome in host.deliver_mailbox() {
            assert_success(&outcome);
        }
        rounds += 1;
        assert!(rounds < 20, "ping-pong must end");
    }
    let counts = |host: &mut drover_vm::MockHost, who| {
        let outcome = host.call_actor(addr(who), "counts", b"");
        (u64_le(&outcome.result[..8]), u64_le(&outcome.result[8..]))
    };
    assert_eq!(counts(&mut host, 0x0b), (3, 0), "b was pinged three times");
    assert_eq!(counts(&mut host, 0x0a), (0, 3), "a got three pongs");
    assert_eq!(rounds, 6);
}

#[test]
fn alarm_rings_at_its_height_and_can_be_disarmed() {
    let mut host = host_with("alarm", 4, &[StorageKv, TimerSchedule]);
    host.block_height = 10;
    let armed = host.call_actor(addr(4), "arm", &15u64.to_le_bytes());
    assert_success(&armed);
    assert_eq!(host.state.timers.len(), 1);
    assert!(host.advance_to(14).is_empty());
    let fired = host.advance_to(15);
    assert_eq!(fired.len(), 1);
    assert_success(&fired[0]);
    let rang = host.call_actor(addr(4), "rang_at", b"");
    assert_eq!(u64_le(&rang.result), 15);

    // A timer in the past is refused; a pending one can be cancelled.
    let past = host.call_actor(addr(4), "arm", &15u64.to_le_bytes());
    assert_eq!(trap_code(&past), ExecCode::TimerHeight);
    assert_success(&host.call_actor(addr(4), "arm", &20u64.to_le_bytes()));
    assert_eq!(host.call_actor(addr(4), "disarm", b"").result, [1]);
    assert!(host.state.timers.is_empty());
    assert_eq!(host.call_actor(addr(4), "disarm", b"").result, [0]);
    assert!(host.advance_to(30).is_empty());
}

#[test]
fn wedge_ticks_in_every_block_until_its_end_and_floods_its_mailbox_using_each_budget() {
    let mut host = host_with("wedge", 0x0c, &[TimerSchedule, MailboxSend]);
    let input = |w: &[u32]| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    // A run stops burning 20,000 cycles short of its budget, so that it succeeds.
    let burned = |outcome: &drover_vm::Outcome, budget: u64| {
        assert_success(outcome);
        assert!(outcome.cycles_used + 20_000 >= budget && outcome.cycles_used <= budget, "{outcome:?}");
    };
    host.block_height = 10;
    assert_success(&host.call_actor(addr(0x0c), "arm", &input(&[3, 500_000, 14])));
    for height in 11..14 {
        let fired = host.advance_to(height);
        assert_eq!(fired.len(), 3, "at {height}");
        fired.iter().for_each(|outcome| burned(outcome, 500_000));
        if height + 1 < 14 {
            assert_eq!(host.state.timers.len(), 3, "each tick scheduled the next");
            assert!(host.state.timers.values().all(|t| t.height == height + 1 && t.cycles_limit == 500_000));
        }
    }
    assert!(host.state.timers.is_empty(), "no tick is scheduled at its end height");
    assert!(host.advance_to(20).is_empty());
    assert_success(&host.call_actor(addr(0x0c), "flood", &input(&[5, 300_000])));
    assert_eq!(host.state.mailbox.len(), 5);
    assert!(host.state.mailbox.iter().all(|m| m.to == addr(0x0c) && m.handler == "burn" && m.cycles_limit == 300_000));
    host.deliver_mailbox().iter().for_each(|outcome| burned(outcome, 300_000));
}

#[test]
fn courier_records_the_heights_its_messages_were_sent_and_delivered_at() {
    let mut host = host_with("courier", 0x0d, &[StorageKv, MailboxSend]);
    host.block_height = 20;
    assert_success(&host.call_actor(addr(0x0d), "post", &7u64.to_le_bytes()));
    assert_eq!(host.state.mailbox.len(), 1);
    assert_eq!(host.state.mailbox[0].cycles_limit, 100_000);
    host.block_height = 23;
    host.deliver_mailbox().iter().for_each(assert_success);
    let record = host.storage(addr(0x0d), &7u64.to_le_bytes()).expect("the arrival is recorded");
    assert_eq!((u64_le(&record[..8]), u64_le(&record[8..])), (20, 23));
}

#[test]
fn bulk_churn_deletes_its_entries_or_with_undo_reverts_and_leaves_them() {
    let mut host = host_with("bulk", 0x0e, &[StorageKv, ActorCall]);
    let words = |w: &[u32]| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    assert_success(&host.call_actor(addr(0x0e), "fill", &words(&[50, 0])));
    let undone = host.call_actor(addr(0x0e), "churn", &words(&[50, 0, 20, 1]));
    assert_eq!(undone.status, Status::Revert { reason: b"undone".to_vec() });
    assert_eq!(host.state.storage.len(), 50, "the entries came back");
    assert_success(&host.call_actor(addr(0x0e), "churn", &words(&[50, 0, 20])));
    assert!(host.state.storage.is_empty());
}

#[test]
fn float_actor_is_refused_at_deploy() {
    let err = validate(&actor("float_op")).unwrap_err();
    assert_eq!(err.code(), ExecCode::FloatInstruction);
    let mut host = host();
    assert!(host.deploy(addr(5), &actor("float_op"), grant(&[])).is_err());
}

#[test]
fn infinite_loop_stops_at_its_budget() {
    let mut host = host_with("infinite_loop", 6, &[]);
    for budget in [10_000u64, 1_000_000] {
        let mut request = host.request(addr(6), "spin", b"");
        request.cycles_limit = budget;
        let outcome = host.run(request);
        assert_eq!(trap_code(&outcome), ExecCode::OutOfCycles);
        assert_eq!(outcome.cycles_used, budget);
    }
}

#[test]
fn memory_bomb_fails_within_the_limit() {
    let mut host = host_with("memory_bomb", 7, &[]);
    let outcome = host.call_actor(addr(7), "grow", b"");
    assert_eq!(trap_code(&outcome), ExecCode::MemoryLimit);
    // Growth is metered (wasmi charges per byte grown), but the limit, not the budget, stops it.
    let budget = host.request(addr(7), "grow", b"").cycles_limit;
    assert!(outcome.cycles_used < budget, "{}", outcome.cycles_used);
    assert_eq!(trap_code(&host.call_actor(addr(7), "grow_big", b"")), ExecCode::MemoryLimit);
    let ok = host.call_actor(addr(7), "grow_ok", b"");
    assert_success(&ok);
    assert_eq!(ok.result, 2u32.to_le_bytes(), "memory is fresh on every call");
}

#[test]
fn deep_recursion_traps_cleanly() {
    let mut host = host_with("deep_recursion", 8, &[ActorCall]);
    let outcome = host.call_actor(addr(8), "dive", b"");
    assert_eq!(trap_code(&outcome), ExecCode::StackOverflow);

    let outcome = host.call_actor(addr(8), "descend", b"");
    assert_success(&outcome);
    let text = String::from_utf8(outcome.result).unwrap();
    assert!(text.starts_with("E1210"), "{text}");
}

#[test]
fn oversize_result_is_refused() {
    let mut host = host_with("oversize_result", 9, &[]);
    assert_eq!(trap_code(&host.call_actor(addr(9), "big", b"")), ExecCode::ResultTooLarge);
    let fits = host.call_actor(addr(9), "fits", b"");
    assert_success(&fits);
    assert_eq!(fits.result.len(), MAX_RESULT_BYTES);
}

#[test]
fn every_example_validates_except_the_float_one() {
    for name in [
        "counter",
        "ledger",
        "echo",
        "pinger",
        "alarm",
        "infinite_loop",
        "memory_bomb",
        "readonly_write",
        "deep_recursion",
        "oversize_result",
        "proxy",
        "audit",
        "bulk",
        "wedge",
        "courier",
    ] {
        let info = validate(&actor(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!info.handlers.is_empty(), "{name}");
    }
}

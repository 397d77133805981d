//! Actor execution end to end through `execute_block`: every block of these tests also runs
//! through a reader that records each read, and must read every key at most once while giving
//! the outcome of the plain complete state.

use crate::deferred::SystemRunKind;
use crate::{
    BlockEnv, BlockOutcome, FeeParams, ReadFault, ReadRequest, build_block, execute_block, read_actor,
    testing::{CYCLES_LIMIT, Chain, RICH, apply, balance, example, inline, read_once, vm},
};
use drover_state::{ActorRecord, Basefees, UpgradeRecord, keys};
use drover_types::{
    Address, Event, TxStatus,
    exec_error::ExecCode,
    keccak256,
    payload::{ACTOR_UPGRADES_ADDRESS, Manifest, Message, Upgrade},
};
use drover_vm::{Outcome, Status};

impl Chain {
    fn read(&self, actor: Address, handler: &str, payload: &[u8]) -> Outcome {
        read_on(&self.state, &self.env(), actor, handler, payload)
    }

    fn storage(&self, actor: Address, key: &[u8]) -> Option<Vec<u8>> {
        self.state.get(&keys::storage_key(&actor, key)).cloned()
    }

    /// The storage entry count the state keeps, checked against the entries it holds.
    fn storage_count(&self, actor: Address) -> u64 {
        let held =
            self.state.keys().filter(|key| keys::storage_entry(key).is_some_and(|(owner, _)| owner == actor)).count()
                as u64;
        let kept = self
            .state
            .get(&keys::actor_storage_count_key(&actor))
            .map_or(0, |bytes| drover_state::decode_count(bytes).unwrap());
        assert_eq!(kept, held, "the kept count matches the entries");
        kept
    }
}

fn read_on(state: &impl crate::StateRead, env: &BlockEnv, actor: Address, handler: &str, payload: &[u8]) -> Outcome {
    let request = ReadRequest {
        actor,
        handler: handler.into(),
        payload: payload.to_vec(),
        caller: Address::ZERO,
        max_cycles: 5_000_000,
        max_cells: 100_000,
    };
    read_actor(vm(), env, Basefees { cycle: 1, cell: 1 }, state, &request).expect("read runs")
}

fn code_of(outcome: &BlockOutcome, index: usize) -> Option<ExecCode> {
    outcome.receipts[index].error.as_ref().map(|e| e.code)
}

fn u64_le(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
}

const ALICE: Address = Address([0xa1; 20]);
const BOB: Address = Address([0xb0; 20]);

#[test]
fn counter_deploys_counts_and_reads() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    let record = ActorRecord::decode(&chain.state[&keys::actor_key(&counter)]).unwrap();
    assert_eq!(record.owner, ALICE);
    assert_eq!(record.code_hash, keccak256(&example("counter")));
    assert_eq!(record.created_height, 1);
    let one = chain.call_tx(ALICE, counter, "increment", &[], 0);
    let two = chain.call_tx(ALICE, counter, "increment", &[], 0);
    let outcome = chain.block(&[one, two]);
    assert!(outcome.receipts.iter().all(|r| r.status == TxStatus::Success));
    assert_eq!(chain.storage(counter, b"count"), Some(2u64.to_le_bytes().to_vec()));
    let read = chain.read(counter, "get", &[]);
    assert_eq!((read.status, u64_le(&read.result)), (Status::Success, 2));
}

#[test]
fn a_revert_rolls_back_but_the_fee_is_charged() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    chain.call(ALICE, counter, "increment", &[]);
    let before = balance(&chain.state, ALICE);
    let outcome = chain.call(ALICE, counter, "bump_and_revert", &[]);
    let receipt = &outcome.receipts[0];
    assert_eq!(receipt.status, TxStatus::Reverted);
    assert_eq!(receipt.error.as_ref().map(|e| e.code), Some(ExecCode::Reverted));
    assert_eq!(receipt.revert_reason.as_deref(), Some("changed my mind"));
    assert!(receipt.cycles_used > 21_000 && receipt.fee.total() > 0);
    assert_eq!(balance(&chain.state, ALICE), before - receipt.fee.total());
    assert_eq!(chain.storage(counter, b"count"), Some(1u64.to_le_bytes().to_vec()));
    assert_eq!(chain.nonces[&ALICE], 3, "the nonce is used");
    let account = crate::testing::account(&chain.state, ALICE).unwrap();
    assert_eq!(account.nonce, 3);
}

#[test]
fn ledger_mints_and_transfers_by_caller() {
    let mut chain = Chain::new(&[(ALICE, RICH), (BOB, RICH)]);
    let ledger = chain.deploy(ALICE, example("ledger"), &["storage.kv"], 0);
    let mint = [&ALICE.0[..], &100u64.to_le_bytes()].concat();
    let pay_bob = [&BOB.0[..], &30u64.to_le_bytes()].concat();
    let too_much = [&ALICE.0[..], &31u64.to_le_bytes()].concat();
    let txs = [
        chain.call_tx(ALICE, ledger, "mint", &mint, 0),
        chain.call_tx(ALICE, ledger, "transfer", &pay_bob, 0),
        chain.call_tx(BOB, ledger, "mint", &mint, 0),
        chain.call_tx(BOB, ledger, "transfer", &too_much, 0),
    ];
    let outcome = chain.block(&txs);
    let statuses: Vec<_> = outcome.receipts.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [TxStatus::Success, TxStatus::Success, TxStatus::Reverted, TxStatus::Reverted]);
    assert_eq!(outcome.receipts[2].revert_reason.as_deref(), Some("not owner"));
    assert_eq!(outcome.receipts[3].revert_reason.as_deref(), Some("insufficient balance"));
    assert_eq!(u64_le(&chain.read(ledger, "balance_of", &ALICE.0).result), 70);
    assert_eq!(u64_le(&chain.read(ledger, "balance_of", &BOB.0).result), 30);

    // `supply` iterates the balances, in a read and in a block, where it also sees the writes of
    // an earlier transaction of the same block.
    assert_eq!(u64_le(&chain.read(ledger, "supply", &[]).result), 100);
    let mint_carol = [&[0xca; 20][..], &5u64.to_le_bytes()].concat();
    let txs = [chain.call_tx(ALICE, ledger, "mint", &mint_carol, 0), chain.call_tx(ALICE, ledger, "audit", &[], 0)];
    let outcome = chain.block(&txs);
    assert!(outcome.receipts.iter().all(|r| r.status == TxStatus::Success), "{:?}", outcome.receipts);
    assert_eq!(u64_le(&chain.read(ledger, "supply", &[]).result), 105);
    assert_eq!(chain.storage_count(ledger), 5, "owner, three balances and the audited supply");
}

#[test]
fn echo_events_go_into_the_receipt_and_reads_cannot_emit() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let echo = chain.deploy(ALICE, example("echo"), &["events.emit"], 0);
    let outcome = chain.call(ALICE, echo, "echo", b"hello");
    assert_eq!(outcome.receipts[0].events, [Event { address: echo, topic: "echo".into(), data: b"hello".to_vec() }]);
    let read = chain.read(echo, "echo", b"hi");
    assert_eq!(read.status.code(), Some(ExecCode::ReadOnlyViolation));
}

#[test]
fn hostile_examples_fail_with_their_codes_and_pay() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let (float, float_address) = chain.deploy_tx(ALICE, example("float_op"), &[], b"", 0);
    let outcome = chain.block(&[float]);
    assert_eq!(outcome.receipts[0].status, TxStatus::Failed);
    assert_eq!(code_of(&outcome, 0), Some(ExecCode::FloatInstruction));
    assert!(outcome.receipts[0].fee.total() > 0, "validation is paid for");
    assert!(!chain.state.contains_key(&keys::actor_key(&float_address)));

    let spin = chain.deploy(ALICE, example("infinite_loop"), &[], 0);
    let outcome = chain.call(ALICE, spin, "spin", &[]);
    assert_eq!(code_of(&outcome, 0), Some(ExecCode::OutOfCycles));
    assert_eq!(outcome.receipts[0].cycles_used, CYCLES_LIMIT, "the whole budget");

    let bomb = chain.deploy(ALICE, example("memory_bomb"), &[], 0);
    assert_eq!(code_of(&chain.call(ALICE, bomb, "grow", &[]), 0), Some(ExecCode::MemoryLimit));
    assert_eq!(u32::from_le_bytes(chain.read(bomb, "grow_ok", &[]).result.try_into().unwrap()), 2);

    let deep = chain.deploy(ALICE, example("deep_recursion"), &["actor.call"], 0);
    assert_eq!(code_of(&chain.call(ALICE, deep, "dive", &[]), 0), Some(ExecCode::StackOverflow));
    let descend = chain.read(deep, "descend", &[]);
    assert!(String::from_utf8_lossy(&descend.result).starts_with("E1210"), "{descend:?}");

    let big = chain.deploy(ALICE, example("oversize_result"), &[], 0);
    assert_eq!(code_of(&chain.call(ALICE, big, "big", &[]), 0), Some(ExecCode::ResultTooLarge));
    assert_eq!(chain.read(big, "fits", &[]).result.len(), 65_536);

    let writer = chain.deploy(ALICE, example("readonly_write"), &["storage.kv", "actor.call"], 0);
    assert_eq!(chain.read(writer, "touch", &[]).status.code(), Some(ExecCode::ReadOnlyViolation));
    assert_eq!(chain.read(writer, "relay", &writer.0).status.code(), Some(ExecCode::ReadOnlyViolation));
    chain.call(ALICE, writer, "relay", &writer.0);
    assert_eq!(chain.read(writer, "peek", &[]).result, b"yes");
    assert_eq!(chain.read(writer, "missing", &[]).status.code(), Some(ExecCode::HandlerNotFound));
}

#[test]
fn nested_calls_move_value_and_a_revert_undoes_every_level() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let proxy = chain.deploy(ALICE, example("proxy"), &["storage.kv", "actor.call", "econ.transfer"], 1_000);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    let forward = [&counter.0[..], &400u128.to_le_bytes(), b"increment"].concat();
    let outcome = chain.call(ALICE, proxy, "forward", &forward);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success);
    assert_eq!(chain.storage(proxy, b"status"), Some(vec![0]));
    assert_eq!(chain.storage(counter, b"count"), Some(1u64.to_le_bytes().to_vec()));
    assert_eq!((balance(&chain.state, proxy), balance(&chain.state, counter)), (600, 400));

    let before = chain.state.clone();
    let alice_before = balance(&chain.state, ALICE);
    let outcome = chain.call(ALICE, proxy, "forward_then_revert", &forward);
    let receipt = &outcome.receipts[0];
    assert_eq!((receipt.status, receipt.revert_reason.as_deref()), (TxStatus::Reverted, Some("undo")));
    assert_eq!(chain.storage(counter, b"count"), Some(1u64.to_le_bytes().to_vec()));
    assert_eq!((balance(&chain.state, proxy), balance(&chain.state, counter)), (600, 400));
    assert_eq!(balance(&chain.state, ALICE), alice_before - receipt.fee.total());
    for (key, value) in &before {
        if keys::account_address(key).is_none() && key != &keys::basefees_key() {
            assert_eq!(chain.state.get(key), Some(value), "key {key:?} changed");
        }
    }

    // A callee that reverts has its own effects undone; the caller goes on.
    let bump = [&counter.0[..], &0u128.to_le_bytes(), b"bump_and_revert"].concat();
    let outcome = chain.call(ALICE, proxy, "forward", &bump);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success);
    assert_eq!(chain.storage(proxy, b"status"), Some(vec![1]));
    assert_eq!(chain.storage(counter, b"count"), Some(1u64.to_le_bytes().to_vec()));
    // Value the caller does not hold fails the caller (E1212).
    let rich_forward = [&counter.0[..], &10_000u128.to_le_bytes(), b"increment"].concat();
    assert_eq!(code_of(&chain.call(ALICE, proxy, "forward", &rich_forward), 0), Some(ExecCode::ActorBalance));
}

const SEND_THEN_REVERT: &str = r#"(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "ping")
  (func (export "go")
    (call $input_read (i32.const 96))
    (call $send (i32.const 96) (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 0)
      (i32.const 64) (i64.const 100000)))
  (func (export "go_and_revert")
    (call $input_read (i32.const 96))
    (call $send (i32.const 96) (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 0)
      (i32.const 64) (i64.const 100000))
    (call $revert (i32.const 0) (i32.const 4))))"#;

#[test]
fn a_reverted_send_queues_nothing_and_pays_back_its_escrow() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let sender = chain.deploy(ALICE, inline(SEND_THEN_REVERT), &["mailbox.send"], 1_000_000);
    let pinger = chain.deploy(ALICE, example("pinger"), &["storage.kv", "mailbox.send"], 0);
    let outcome = chain.call(ALICE, sender, "go_and_revert", &pinger.0);
    assert_eq!(outcome.receipts[0].status, TxStatus::Reverted);
    assert_eq!(balance(&chain.state, sender), 1_000_000);
    assert!(!chain.state.contains_key(&keys::mail_queue_key()));
    // Without the revert the message is queued and its budget held.
    chain.call(ALICE, sender, "go", &pinger.0);
    assert!(chain.state.contains_key(&keys::message_key(0)));
    assert!(balance(&chain.state, sender) < 1_000_000);
}

#[test]
fn pinger_mailbox_is_fifo_and_exactly_once() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let manifest = ["storage.kv", "mailbox.send"];
    let (a_tx, a) = chain.deploy_tx(ALICE, example("pinger"), &manifest, b"a", 100_000_000);
    let (b_tx, b) = chain.deploy_tx(ALICE, example("pinger"), &manifest, b"b", 100_000_000);
    chain.block(&[a_tx, b_tx]);
    let start = chain.call(ALICE, a, "start", &b.0);
    assert!(start.system_runs.is_empty(), "sent messages wait for a later block");
    let mut delivered = Vec::new();
    for _ in 0..8 {
        let outcome = chain.block(&[]);
        for run in &outcome.system_runs {
            assert_eq!(run.status, TxStatus::Success, "{:?}", run.error);
            let SystemRunKind::Delivery { seq, .. } = run.kind else { panic!("no timers here") };
            delivered.push((seq, run.actor, run.handler.clone()));
        }
    }
    let expected: Vec<_> = (0..6u64)
        .map(|seq| if seq % 2 == 0 { (seq, b, "ping".to_owned()) } else { (seq, a, "pong".to_owned()) })
        .collect();
    assert_eq!(delivered, expected, "each message once, in order");
    let counts = chain.read(a, "counts", &[]).result;
    assert_eq!((u64_le(&counts[..8]), u64_le(&counts[8..])), (0, 3));
    let counts = chain.read(b, "counts", &[]).result;
    assert_eq!((u64_le(&counts[..8]), u64_le(&counts[8..])), (3, 0));
    // Nothing pending is left behind.
    assert!(chain.state.keys().all(|k| k[0] != keys::PREFIX_MAILBOX || *k == keys::mail_queue_key()));
}

#[test]
fn alarms_fire_at_their_height_in_fifo_order_and_can_be_disarmed() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let manifest = ["storage.kv", "timer.schedule"];
    let (first_tx, first) = chain.deploy_tx(ALICE, example("alarm"), &manifest, b"1", 1_000_000_000);
    let (second_tx, second) = chain.deploy_tx(ALICE, example("alarm"), &manifest, b"2", 1_000_000_000);
    let (third_tx, third) = chain.deploy_tx(ALICE, example("alarm"), &manifest, b"3", 1_000_000_000);
    chain.block(&[first_tx, second_tx, third_tx]);
    let at = chain.height + 3;
    let arm = [
        chain.call_tx(ALICE, second, "arm", &at.to_le_bytes(), 0),
        chain.call_tx(ALICE, first, "arm", &at.to_le_bytes(), 0),
        chain.call_tx(ALICE, third, "arm", &at.to_le_bytes(), 0),
    ];
    chain.block(&arm);
    let disarm = chain.call(ALICE, third, "disarm", &[]);
    assert_eq!(disarm.receipts[0].status, TxStatus::Success);
    assert!(chain.block(&[]).system_runs.is_empty());
    assert_eq!(chain.height, at);
    let outcome = chain.block(&[]);
    let fired: Vec<_> = outcome.system_runs.iter().map(|r| (r.actor, r.status)).collect();
    assert_eq!(fired, [(second, TxStatus::Success), (first, TxStatus::Success)]);
    assert!(outcome.system_runs.iter().all(|r| r.fee.burned > 0 && r.fee.tip == 0));
    for alarm in [first, second] {
        assert_eq!(u64_le(&chain.read(alarm, "rang_at", &[]).result), at);
    }
    assert_eq!(u64_le(&chain.read(third, "rang_at", &[]).result), 0);
    assert!(chain.block(&[]).system_runs.is_empty(), "a timer fires once");
    assert!(chain.state.keys().all(|k| k[0] != keys::PREFIX_TIMER), "nothing left behind");
}

#[test]
fn a_timer_whose_payer_cannot_pay_is_dropped_with_a_reason() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let alarm = chain.deploy(ALICE, example("alarm"), &["storage.kv", "timer.schedule"], 0);
    let at = chain.height + 1;
    chain.call(ALICE, alarm, "arm", &at.to_le_bytes());
    let outcome = chain.block(&[]);
    let run = &outcome.system_runs[0];
    assert_eq!((run.actor, run.status), (alarm, TxStatus::Failed));
    assert_eq!(run.error.as_ref().map(|e| e.code), Some(ExecCode::TimerUnpaid));
    assert_eq!(run.kind, SystemRunKind::Timer { id: at << 32 });
    assert_eq!(u64_le(&chain.read(alarm, "rang_at", &[]).result), 0);
    assert!(chain.state.keys().all(|k| k[0] != keys::PREFIX_TIMER));
}

const MANY_TIMERS: &str = r#"(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "block_height" (func $height (result i64)))
  (import "drover" "timer_schedule" (func $schedule (param i64 i32 i32 i32 i32 i64) (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 0) "tick")
  (func (export "many")
    (local $n i64)
    (call $input_read (i32.const 64))
    (local.set $n (i64.load (i32.const 64)))
    (block $done
      (loop $more
        (br_if $done (i64.eqz (local.get $n)))
        (drop (call $schedule (i64.add (call $height) (i64.const 100)) (i32.const 0) (i32.const 4)
          (i32.const 0) (i32.const 0) (i64.const 10000)))
        (local.set $n (i64.sub (local.get $n) (i64.const 1)))
        (br $more))))
  (func (export "tick")))"#;

#[test]
fn an_actor_may_have_at_most_1024_pending_timers() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    chain.limits = crate::testing::LARGE_LIMITS;
    let timers = chain.deploy(ALICE, inline(MANY_TIMERS), &["timer.schedule"], 0);
    for _ in 0..4 {
        let outcome = chain.call(ALICE, timers, "many", &250u64.to_le_bytes());
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
    }
    let outcome = chain.call(ALICE, timers, "many", &25u64.to_le_bytes());
    assert_eq!(code_of(&outcome, 0), Some(ExecCode::TooManyTimers));
    let outcome = chain.call(ALICE, timers, "many", &24u64.to_le_bytes());
    assert_eq!(outcome.receipts[0].status, TxStatus::Success);
    assert_eq!(chain.state[&keys::timer_pending_key(&timers)], drover_state::encode_count(1_024));
    assert_eq!(crate::testing::listed(&chain.state, &keys::timers_listing(&timers)).len(), 1_024);
    assert_eq!(code_of(&chain.call(ALICE, timers, "many", &1u64.to_le_bytes()), 0), Some(ExecCode::TooManyTimers));
}

/// `put`: stores its input under the key `k`.
const PUT: &str = r#"(module
  (import "drover" "input_len" (func $len (result i32)))
  (import "drover" "input_read" (func $read (param i32)))
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (memory (export "memory") 2)
  (data (i32.const 0) "k")
  (func (export "put")
    (call $read (i32.const 16))
    (call $set (i32.const 0) (i32.const 1) (i32.const 16) (call $len))))"#;

#[test]
fn code_size_storage_values_and_pending_timers_follow_the_live_parameters() {
    use drover_state::governance::params_state_key;
    use drover_types::chain_params::ChainParams;
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let put = chain.deploy(ALICE, inline(PUT), &["storage.kv"], 0);
    let timers = chain.deploy(ALICE, inline(MANY_TIMERS), &["timer.schedule"], 0);
    assert_eq!(chain.call(ALICE, put, "put", &[7; 2_000]).receipts[0].status, TxStatus::Success);
    // As if a vote had lowered the three limits.
    let counter = example("counter");
    let lowered = ChainParams {
        max_code_bytes: counter.len() as u64 - 1,
        max_storage_value_bytes: 1_024,
        max_pending_timers_per_actor: 3,
        ..ChainParams::default()
    };
    chain.state.insert(params_state_key(), lowered.encode());
    let (deploy, _) = chain.deploy_tx(ALICE, counter, &["storage.kv"], b"", 0);
    assert_eq!(code_of(&chain.block(&[deploy]), 0), Some(ExecCode::CodeTooLarge));
    assert_eq!(code_of(&chain.call(ALICE, put, "put", &[7; 1_025]), 0), Some(ExecCode::HostCallArgument));
    assert_eq!(chain.call(ALICE, put, "put", &[7; 1_024]).receipts[0].status, TxStatus::Success);
    assert_eq!(code_of(&chain.call(ALICE, timers, "many", &4u64.to_le_bytes()), 0), Some(ExecCode::TooManyTimers));
    assert_eq!(chain.call(ALICE, timers, "many", &3u64.to_le_bytes()).receipts[0].status, TxStatus::Success);
}

/// An actor whose `run` does nothing, carrying `padding` bytes of data.
fn padded(padding: usize) -> Vec<u8> {
    inline(&format!(
        r#"(module (memory (export "memory") 2) (data (i32.const 0) "{}") (func (export "run")))"#,
        "x".repeat(padding)
    ))
}

#[test]
fn running_a_module_pays_for_loading_it_by_its_size_whatever_the_cache_holds() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let (small_code, big_code) = (padded(0), padded(100_000));
    let small = chain.deploy(ALICE, small_code.clone(), &[], 0);
    let big = chain.deploy(ALICE, big_code.clone(), &[], 0);
    let used = |chain: &mut Chain, actor| {
        let tx = chain.call_tx_with_limits(ALICE, actor, "run", &[], (5_000_000, 40_000));
        let outcome = chain.block(&[tx]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
        outcome.receipts[0].cycles_used
    };
    let (first_small, first_big) = (used(&mut chain, small), used(&mut chain, big));
    let extra = (big_code.len() - small_code.len()) as u64;
    let instantiation = (big_code.len() as u64 / 64) - (small_code.len() as u64 / 64);
    assert_eq!(
        first_big - first_small,
        extra * drover_vm::meter::CYCLES_PER_CODE_BYTE_LOADED + instantiation,
        "compiling 100 KB costs the node some 2.6 ms: the caller pays for every byte"
    );
    // The VM's cache now holds the module; the charge is the same (caches differ between
    // validators, charges may not).
    assert_eq!(used(&mut chain, big), first_big);
}

#[test]
fn upgrades_are_owner_only_narrowing_and_recorded() {
    let mut chain = Chain::new(&[(ALICE, RICH), (BOB, RICH)]);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv", "events.emit"], 0);
    chain.call(ALICE, counter, "increment", &[]);
    let upgrade = |code: Vec<u8>, ids: &[&str]| {
        Upgrade { actor: counter, code, manifest: Manifest::new(ids.iter().map(|s| s.to_string()).collect()) }.message()
    };
    let by_bob = chain.tx(BOB, Some(ACTOR_UPGRADES_ADDRESS), upgrade(example("echo"), &["storage.kv"]), 0);
    let wider =
        chain.tx(ALICE, Some(ACTOR_UPGRADES_ADDRESS), upgrade(example("echo"), &["storage.kv", "actor.call"]), 0);
    let floats = chain.tx(ALICE, Some(ACTOR_UPGRADES_ADDRESS), upgrade(example("float_op"), &[]), 0);
    let good = chain.tx(ALICE, Some(ACTOR_UPGRADES_ADDRESS), upgrade(example("echo"), &["events.emit"]), 0);
    let upgrade_height = chain.env().height;
    let tx_hash = good.hash;
    let outcome = chain.block(&[by_bob, wider, floats, good]);
    let codes: Vec<_> = (0..4).map(|i| code_of(&outcome, i)).collect();
    assert_eq!(
        codes,
        [Some(ExecCode::NotOwner), Some(ExecCode::ManifestWidened), Some(ExecCode::FloatInstruction), None]
    );
    assert!(outcome.receipts[..3].iter().all(|r| r.status == TxStatus::Failed && r.fee.total() > 0));
    let record = ActorRecord::decode(&chain.state[&keys::actor_key(&counter)]).unwrap();
    assert_eq!((record.code_hash, record.upgrades), (keccak256(&example("echo")), 1));
    assert_eq!(record.entitlements, ["events.emit"]);
    let history = UpgradeRecord::decode(&chain.state[&keys::upgrade_key(&counter, 0)]).unwrap();
    assert_eq!(
        history,
        UpgradeRecord {
            height: upgrade_height,
            old_code_hash: keccak256(&example("counter")),
            new_code_hash: keccak256(&example("echo")),
            tx_hash,
        }
    );
    // Storage stays; the new code runs.
    assert_eq!(chain.storage(counter, b"count"), Some(1u64.to_le_bytes().to_vec()));
    assert_eq!(chain.read(counter, "echo", b"x").status.code(), Some(ExecCode::ReadOnlyViolation));
    assert_eq!(code_of(&chain.call(ALICE, counter, "increment", &[]), 0), Some(ExecCode::HandlerNotFound));
}

const ITERATOR: &str = r#"(module
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (import "drover" "storage_remove" (func $remove (param i32 i32) (result i32)))
  (import "drover" "storage_next" (func $next (param i32 i32 i32 i32 i32 i32 i32 i32) (result i64)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "a1a3b1a2")
  (func $fill
    (call $set (i32.const 0) (i32.const 2) (i32.const 0) (i32.const 1))
    (call $set (i32.const 2) (i32.const 2) (i32.const 2) (i32.const 1))
    (call $set (i32.const 4) (i32.const 2) (i32.const 4) (i32.const 1)))
  (func $list
    (local $cursor_len i32) (local $out i32) (local $r i64) (local $len i32)
    (local.set $out (i32.const 200))
    (block $done
      (loop $more
        (local.set $r (call $next (i32.const 0) (i32.const 1) (i32.const 100) (local.get $cursor_len)
          (i32.const 100) (i32.const 16) (i32.const 150) (i32.const 16)))
        (br_if $done (i64.lt_s (local.get $r) (i64.const 0)))
        (local.set $len (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))))
        (memory.copy (local.get $out) (i32.const 100) (local.get $len))
        (local.set $out (i32.add (local.get $out) (local.get $len)))
        (local.set $cursor_len (local.get $len))
        (br $more)))
    (call $set_result (i32.const 200) (i32.sub (local.get $out) (i32.const 200))))
  (func (export "fill") (call $fill))
  (func (export "list") (call $list))
  ;; In one execution: add a2, drop a1, list (the overlay merged with the parent state).
  (func (export "edit_and_list")
    (call $set (i32.const 6) (i32.const 2) (i32.const 6) (i32.const 1))
    (drop (call $remove (i32.const 0) (i32.const 2)))
    (call $list)))"#;

#[test]
fn storage_iteration_merges_the_block_writes_with_the_parent_state() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let iter = chain.deploy(ALICE, inline(ITERATOR), &["storage.kv"], 0);
    let filled = chain.call(ALICE, iter, "fill", &[]);
    assert_eq!(filled.receipts[0].status, TxStatus::Success, "{:?}", filled.receipts[0].error);
    // Entries come in storage order (by a hash of the actor and key), not byte order.
    let in_storage_order = |mut names: Vec<&[u8]>| {
        names.sort_by_key(|name| keys::storage_key(&iter, name));
        names.concat()
    };
    assert_eq!(chain.read(iter, "list", &[]).result, in_storage_order(vec![b"a1", b"a3"]));
    assert_eq!(chain.storage_count(iter), 3);
    // Overwriting entries does not count them again.
    chain.call(ALICE, iter, "fill", &[]);
    assert_eq!(chain.storage_count(iter), 3);
    assert_eq!(chain.read(iter, "edit_and_list", &[]).status.code(), Some(ExecCode::ReadOnlyViolation));
    // a2 (written in this execution) merges with a3 (parent state); a1 (deleted) is skipped;
    // b1 never matches the prefix.
    let outcome = chain.call(ALICE, iter, "edit_and_list", &[]);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success);
    assert_eq!(chain.read(iter, "list", &[]).result, in_storage_order(vec![b"a2", b"a3"]));
    assert_eq!(chain.storage_count(iter), 3, "a2 added, a1 removed");

    // An entry of another actor inside this actor's range (as a 2^56 search for a colliding
    // spread could place it) is skipped, whatever its key.
    let other = Address([0x77; 20]);
    let foreign = [&keys::storage_range(&iter)[..], &[0; 8], &other.0, b"a0"].concat();
    assert_eq!(keys::storage_entry(&foreign), Some((other, &b"a0"[..])));
    chain.state.insert(foreign, b"x".to_vec());
    assert_eq!(chain.read(iter, "list", &[]).result, in_storage_order(vec![b"a2", b"a3"]));
}

#[test]
fn metering_is_deterministic() {
    let run = || {
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
        let echo = chain.deploy(ALICE, example("echo"), &["events.emit"], 0);
        let a = chain.call(ALICE, counter, "increment", &[]).receipts[0].clone();
        let b = chain.call(ALICE, echo, "echo", &[7; 100]).receipts[0].clone();
        (a.cycles_used, a.cells_used, b.cycles_used, b.cells_used, chain.state)
    };
    let (first, second) = (run(), run());
    assert_eq!(first, second);
    // Intrinsic 21,000 + VM; cells = the payload carried, then the 5-byte key and 8-byte value.
    let carried = |handler: &str, payload: &[u8]| {
        Message { handler: handler.into(), payload: payload.to_vec() }.encode().len() as u64
    };
    assert!(first.0 > 21_000);
    assert_eq!(first.1, carried("increment", &[]) + 13);
    assert_eq!(first.3, carried("echo", &[7; 100]) + 4 + 100);
}

#[test]
fn state_is_read_once_per_key_in_one_pass() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let proxy = chain.deploy(ALICE, example("proxy"), &["storage.kv", "actor.call", "econ.transfer"], 0);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    let forward = [&counter.0[..], &0u128.to_le_bytes(), b"increment"].concat();
    let txs = [chain.call_tx(ALICE, proxy, "forward", &forward, 0), chain.call_tx(ALICE, counter, "increment", &[], 0)];
    let env = chain.env();
    let full = execute_block(vm(), &env, &FeeParams::default(), &chain.state, &txs).unwrap();
    let (recorded, reads) = read_once(&chain.state, &env, &txs);
    assert_eq!(recorded, full);
    assert!(full.receipts.iter().all(|r| r.status == TxStatus::Success));
    // Basefees, cursors, three accounts, two actor records, the callee's code and its slot, …:
    // a few keys per transaction, never a re-execution.
    assert!(reads < 20, "{reads} reads");
}

#[test]
fn a_handler_reading_thousands_of_fresh_keys_costs_one_lookup_each() {
    // 4,000 distinct absent keys in one call: once the block used to be re-executed per key.
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let scanner = chain.deploy(ALICE, example("fresh_reader"), &["storage.kv"], 0);
    let tx = chain.call_tx_with_limits(ALICE, scanner, "scan", &4_000u32.to_le_bytes(), (15_000_000, 40_000));
    let env = chain.env();
    let (outcome, reads) = read_once(&chain.state, &env, &[tx]);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
    assert!((4_000..4_020).contains(&reads), "{reads} reads");
    // Each of those lookups was paid for: at least the storage read price.
    assert!(outcome.receipts[0].cycles_used > 4_000 * drover_vm::meter::CYCLES_STORAGE_READ);
}

#[test]
fn a_message_to_an_account_fails_and_pays_and_one_to_a_disabled_system_actor_is_invalid() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    // Whether an address holds an actor is the state's to say when the call runs: the call is
    // included, fails with E1211 and pays its intrinsic cost (admission refuses it up front).
    let to_account = chain.call_tx(ALICE, BOB, "anything", &[], 0);
    let intrinsic = drover_types::validity::intrinsic_cost(&to_account.tx);
    let outcome = chain.block(&[to_account]);
    assert_eq!(code_of(&outcome, 0), Some(ExecCode::NoActor));
    assert_eq!((outcome.receipts[0].cycles_used, outcome.receipts[0].cells_used), (intrinsic.cycles, intrinsic.cells));
    assert!(outcome.receipts[0].fee.total() > 0);
    // A reserved address no system actor serves: invalid, whatever the state.
    let disabled = chain.call_tx(ALICE, Address::system(0x0f), "register", &[], 0);
    assert_eq!(chain.refusal(&disabled), Some(crate::RejectReason::InvalidPayload));
    // A value deposit to an actor is a plain transfer.
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    let deposit = chain.tx(ALICE, Some(counter), Vec::new(), 77);
    assert_eq!(chain.block(&[deposit]).receipts[0].status, TxStatus::Success);
    assert_eq!(balance(&chain.state, counter), 77);
    // The same deploy twice: the address is taken.
    let (again, _) = chain.deploy_tx(ALICE, example("counter"), &["storage.kv"], b"", 0);
    assert_eq!(code_of(&chain.block(&[again]), 0), Some(ExecCode::ActorExists));
}

#[test]
fn reads_never_write_and_stop_when_the_state_cannot_be_read() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    let read = chain.read(counter, "increment", &[]);
    assert_eq!(read.status.code(), Some(ExecCode::ReadOnlyViolation));
    let request = ReadRequest {
        actor: counter,
        handler: "get".into(),
        payload: Vec::new(),
        caller: ALICE,
        max_cycles: 1_000,
        max_cells: 0,
    };
    let env = chain.env();
    let basefees = Basefees { cycle: 1, cell: 1 };
    let outcome = read_actor(vm(), &env, basefees, &chain.state, &request).unwrap();
    assert_eq!(outcome.status.code(), Some(ExecCode::OutOfCycles));
    let unreadable = read_actor(vm(), &env, basefees, &Unreadable, &request).unwrap_err();
    assert_eq!(unreadable, crate::ReadFailure::Unavailable(ReadFault("gone".into())));
    let nobody = ReadRequest { actor: BOB, ..request };
    assert_eq!(read_actor(vm(), &env, basefees, &chain.state, &nobody), Err(crate::ReadFailure::NoActor(BOB)));
}

#[test]
fn a_traced_read_ends_and_meters_like_an_untraced_one_and_shows_its_calls() {
    use drover_types::api::{ReceiptStatus, TraceStep};
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    chain.call(ALICE, counter, "increment", &[]);
    let deep = chain.deploy(ALICE, example("deep_recursion"), &["actor.call"], 0);
    let env = chain.env();
    let basefees = Basefees { cycle: 1, cell: 1 };
    let request = |actor, handler: &str| ReadRequest {
        actor,
        handler: handler.into(),
        payload: Vec::new(),
        caller: ALICE,
        max_cycles: 5_000_000,
        max_cells: 100_000,
    };

    let get = request(counter, "get");
    let (outcome, trace) = crate::read_actor_traced(vm(), &env, basefees, &chain.state, &get).unwrap();
    assert_eq!(outcome, read_actor(vm(), &env, basefees, &chain.state, &get).unwrap());
    let root = trace.call.expect("the handler ran");
    assert_eq!((root.actor, root.handler.as_str(), root.status), (counter, "get", ReceiptStatus::Success));
    assert_eq!((root.cycles_used, root.cells_used), (outcome.cycles_used, outcome.cells_used));
    assert!(
        matches!(&root.steps[..], [TraceStep::StorageGet { key, value: Some(v) }] if key == b"count" && v.len == 8),
        "{:?}",
        root.steps
    );

    // Self-calls down to the depth limit: one frame per level, each within its caller, and
    // the same outcome as the untraced read.
    let descend = request(deep, "descend");
    let (outcome, trace) = crate::read_actor_traced(vm(), &env, basefees, &chain.state, &descend).unwrap();
    assert_eq!(outcome, read_actor(vm(), &env, basefees, &chain.state, &descend).unwrap());
    let mut frame = trace.call.expect("the handler ran");
    assert_eq!(frame.cycles_used, outcome.cycles_used);
    let mut levels = 0u32;
    while let Some(TraceStep::Call { call: nested }) = frame.steps.first() {
        assert!(nested.cycles_used < frame.cycles_used, "a callee's cycles are within its caller's");
        frame = nested.clone();
        levels += 1;
    }
    assert_eq!(levels, drover_vm::limits::MAX_CALL_DEPTH, "every level down to the limit");
    assert_eq!(trace.omitted_steps, 0);
}

#[test]
fn proposer_filter_drops_what_does_not_fit_before_running_it() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let spin = chain.deploy(ALICE, example("infinite_loop"), &[], 0);
    // Two spins of 15M cycles each cannot share a 20M-cycle block: their limits do not fit.
    let txs = [
        chain.call_tx_with_limits(ALICE, spin, "spin", &[], (15_000_000, 40_000)),
        chain.call_tx_with_limits(ALICE, spin, "spin", &[], (15_000_000, 40_000)),
    ];
    let (selection, _) = build_block(vm(), &chain.env(), &FeeParams::default(), &chain.state, &txs).unwrap();
    assert_eq!(selection.included, [0]);
    assert_eq!(selection.dropped[0].0, 1);
    assert_eq!(selection.dropped[0].1.reason, crate::RejectReason::BlockFull(crate::Meter::Cycles));
}

/// A state whose every read fails.
struct Unreadable;

impl crate::StateRead for Unreadable {
    fn get(&self, _: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
        Err(ReadFault("gone".into()))
    }
    fn next_entry(&self, _: &crate::NextKeyQuery) -> Result<Option<crate::Entry>, ReadFault> {
        Err(ReadFault("gone".into()))
    }
}

#[test]
fn a_block_whose_state_cannot_be_read_has_no_outcome() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
    let tx = chain.call_tx(ALICE, counter, "increment", &[], 0);
    let error = execute_block(vm(), &chain.env(), &FeeParams::default(), &Unreadable, &[tx]).unwrap_err();
    assert_eq!(error, crate::BlockError::Unavailable(ReadFault("gone".into())));
}

#[test]
fn the_bulk_benchmark_actor_fills_walks_nests_and_reads_balances() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let bulk = chain.deploy(ALICE, example("bulk"), &["storage.kv", "actor.call"], 0);
    let args = |a: u32, b: u32| [a.to_le_bytes(), b.to_le_bytes()].concat();
    let filled = chain.call(ALICE, bulk, "fill", &args(100, 7));
    assert_eq!(filled.receipts[0].status, TxStatus::Success, "{:?}", filled.receipts[0]);
    assert_eq!(chain.storage_count(bulk), 100);
    assert_eq!(chain.storage(bulk, &7u64.to_le_bytes()), Some(7u64.to_le_bytes().to_vec()));
    assert_eq!(chain.read(bulk, "walk", &1_000u32.to_le_bytes()).result, 100u32.to_le_bytes());
    assert_eq!(chain.read(bulk, "walk", &10u32.to_le_bytes()).result, 10u32.to_le_bytes());
    // Rewriting existing keys adds none.
    let touch = [10u32.to_le_bytes(), 99u32.to_le_bytes(), 100u32.to_le_bytes()].concat();
    let touched = chain.call(ALICE, bulk, "touch", &touch);
    assert_eq!(touched.receipts[0].status, TxStatus::Success, "{:?}", touched.receipts[0]);
    assert!(
        touched.receipts[0].cycles_used
            > 10 * (drover_vm::meter::CYCLES_STORAGE_READ + drover_vm::meter::CYCLES_STORAGE_WRITE)
    );
    assert!(chain.storage_count(bulk) <= 107);
    // 1 + 2 + 4 + 8 calls, each paying for its instantiation.
    let nested = chain.call(ALICE, bulk, "nest", &args(3, 2));
    assert_eq!(nested.receipts[0].status, TxStatus::Success, "{:?}", nested.receipts[0]);
    assert!(nested.receipts[0].cycles_used > 14 * drover_vm::meter::CYCLES_CALL);
    let balances = chain.read(bulk, "balances", &args(5, 0));
    assert_eq!(balances.status, drover_vm::Status::Success);
    assert!(balances.cycles_used > 5 * drover_vm::meter::CYCLES_BALANCE);
}

#[test]
fn walking_from_among_deleted_entries_asks_the_state_once_per_entry() {
    use crate::testing::{AUDIT_CYCLES_PER_LOOKUP, Counting};
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    chain.limits = crate::testing::LARGE_LIMITS;
    let bulk = chain.deploy(ALICE, example("bulk"), &["storage.kv", "actor.call"], 0);
    let args = |n: &[u32]| n.iter().flat_map(|n| n.to_le_bytes()).collect::<Vec<u8>>();
    let filled = chain.call(ALICE, bulk, "fill", &args(&[1_500, 0]));
    assert_eq!(filled.receipts[0].status, TxStatus::Success);
    // One transaction deletes the 1,500 entries and walks from the start 2,000 times: each walk
    // used to ask the state past every deleted entry (3 million lookups).
    let churn = chain.call_tx(ALICE, bulk, "churn", &args(&[1_500, 0, 2_000]), 0);
    let reader = Counting::new(&chain.state);
    let outcome =
        execute_block(vm(), &chain.env(), &FeeParams::default(), &reader, std::slice::from_ref(&churn)).unwrap();
    let receipt = &outcome.receipts[0];
    assert_eq!(receipt.status, TxStatus::Success, "{:?}", receipt.error);
    let lookups = reader.reads().lookups();
    assert!(lookups * AUDIT_CYCLES_PER_LOOKUP <= receipt.cycles_used, "{lookups} lookups for {receipt:?}");
    chain.block(&[churn]);
    assert_eq!(chain.storage_count(bulk), 0);
}

#[test]
fn accounts_an_actor_creates_are_paid_for_in_cells() {
    use drover_vm::meter::{CELLS_NEW_ACCOUNT, CYCLES_NEW_ACCOUNT};
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    chain.limits = crate::testing::LARGE_LIMITS;
    let bulk = chain.deploy(ALICE, example("bulk"), &["storage.kv", "actor.call", "econ.transfer"], 1_000_000);
    let args = |n: u32, start: u32| [n.to_le_bytes(), start.to_le_bytes()].concat();
    let state_bytes = |chain: &Chain| chain.state.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum::<u64>();
    let before = state_bytes(&chain);
    // 500 transfers of 1 to addresses without an account create 500 accounts.
    let created = chain.call(ALICE, bulk, "pay", &args(500, 0));
    let grown = state_bytes(&chain) - before;
    // The same transfers again create nothing, and pay only the payload's cells.
    let again = chain.call(ALICE, bulk, "pay", &args(500, 0));
    let (created, again) = (&created.receipts[0], &again.receipts[0]);
    assert_eq!((created.status, again.status), (TxStatus::Success, TxStatus::Success), "{:?}", created.error);
    let paid_cells = created.cells_used - again.cells_used;
    assert_eq!(paid_cells, 500 * CELLS_NEW_ACCOUNT);
    assert_eq!(created.cycles_used - again.cycles_used, 500 * CYCLES_NEW_ACCOUNT);
    assert!(grown <= paid_cells, "{grown} bytes of state for {paid_cells} cells");
    let mut first = [0; 20];
    first[0] = 0xbe;
    assert_eq!(balance(&chain.state, Address(first)), 2);
    // The price is the record's largest size, key included.
    let largest = drover_state::Account { nonce: u64::MAX, balance: u128::MAX }.encode();
    assert_eq!(CELLS_NEW_ACCOUNT, (keys::account_key(&ALICE).len() + largest.len()) as u64);
}

#[test]
fn cancelled_timers_are_skipped_a_bounded_number_per_block() {
    let max_examined = (super::TIMER_SLOTS_EXAMINED_PER_FIRE
        * drover_types::chain_params::ChainParams::default().max_timer_fires_per_block) as usize;
    // 3,000 timers were scheduled at this height and all cancelled (the records are gone, the
    // count stays): three blocks share the walk.
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let height = chain.height;
    chain.state.insert(keys::timer_slot_key(height), drover_state::encode_count(3_000));
    let mut cursors = Vec::new();
    for _ in 0..3 {
        let env = chain.env();
        let (outcome, reads) = read_once(&chain.state, &env, &[]);
        assert!(reads <= max_examined + 16, "{reads} reads");
        apply(&mut chain.state, outcome.writes);
        chain.height += 1;
        let cursor =
            chain.state.get(&keys::timer_cursor_key()).map(|bytes| drover_state::TimerCursor::decode(bytes).unwrap());
        cursors.push(cursor.map(|c| (c.height, c.seq)));
    }
    let examined = max_examined as u32;
    assert_eq!(cursors, [Some((height, examined)), Some((height, 2 * examined)), None]);
}

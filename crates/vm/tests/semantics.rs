//! Cross-cutting semantics against `MockHost`: revert and rollback (also across nested calls),
//! read-only executions, entitlement refusals, call depth, metering determinism, and the ABI's
//! edge cases (bad pointers, missing memory, cells and cycles limits).

mod common;

use common::*;
use drover_types::{Address, exec_error::ExecCode};
use drover_vm::{
    CallContext, Entitlement::*, Entitlements, Invocation, MockHost, Outcome, Status, Vm, abi::HOST_FUNCTIONS, meter::*,
};
use std::sync::Arc;

const PROXY: u8 = 0x50;
const COUNTER: u8 = 0x51;
const TOUCHY: u8 = 0x52;

fn forward_args(target: Address, value: u128, handler: &str) -> Vec<u8> {
    [&target.0[..], &value.to_le_bytes(), handler.as_bytes()].concat()
}

fn nested_host() -> MockHost {
    let mut host = host_with("proxy", PROXY, &[StorageKv, ActorCall, EconTransfer]);
    host.deploy(addr(COUNTER), &actor("counter"), grant(&[StorageKv])).unwrap();
    host.deploy(addr(TOUCHY), &actor("readonly_write"), grant(&[StorageKv, ActorCall])).unwrap();
    host
}

#[test]
fn revert_discards_the_actors_writes() {
    let mut host = host_with("counter", COUNTER, &[StorageKv]);
    assert_success(&host.call_actor(addr(COUNTER), "increment", b""));
    let outcome = host.call_actor(addr(COUNTER), "bump_and_revert", b"");
    assert_eq!(outcome.status, Status::Revert { reason: b"changed my mind".to_vec() });
    assert!(outcome.result.is_empty());
    // The VM metered the write before the revert; the host discarded it.
    assert_eq!(outcome.cells_used, 13);
    assert_eq!(host.storage(addr(COUNTER), b"count"), Some(&1u64.to_le_bytes()[..]));
}

#[test]
fn nested_success_is_kept_and_charged_to_the_caller() {
    let mut host = nested_host();
    let outcome = host.call_actor(addr(PROXY), "forward", &forward_args(addr(COUNTER), 0, "increment"));
    assert_success(&outcome);
    assert_eq!(u64_le(&outcome.result), 1, "the callee's result is the return data");
    assert_eq!(host.storage(addr(PROXY), b"status"), Some(&[0u8][..]));
    assert_eq!(host.storage(addr(COUNTER), b"count"), Some(&1u64.to_le_bytes()[..]));
    // Caller's two writes (6+4, 6+1) plus the callee's (5+8).
    assert_eq!(outcome.cells_used, 10 + 7 + 13);

    // The counter alone costs fewer cycles than through the proxy.
    let direct = host.call_actor(addr(COUNTER), "increment", b"");
    assert!(outcome.cycles_used > direct.cycles_used + CYCLES_CALL);
}

#[test]
fn nested_revert_rolls_back_only_the_callee() {
    let mut host = nested_host();
    let outcome = host.call_actor(addr(PROXY), "forward", &forward_args(addr(COUNTER), 0, "bump_and_revert"));
    assert_success(&outcome);
    assert_eq!(outcome.result, b"changed my mind");
    assert_eq!(host.storage(addr(PROXY), b"status"), Some(&[1u8][..]));
    assert_eq!(host.storage(addr(PROXY), b"before"), Some(&b"undo"[..]));
    assert_eq!(host.storage(addr(COUNTER), b"count"), None);

    // A failing callee: status 2 with the E-code as return data.
    let outcome = host.call_actor(addr(PROXY), "forward", &forward_args(addr(COUNTER), 0, "nope"));
    assert_success(&outcome);
    assert_eq!(host.storage(addr(PROXY), b"status"), Some(&[2u8][..]));
    assert!(outcome.result.starts_with(b"E1205"));
}

#[test]
fn outer_revert_rolls_back_nested_effects_and_value() {
    let mut host = nested_host();
    host.credit(addr(PROXY), 1_000);
    let before = host.state.clone();
    let outcome = host.call_actor(addr(PROXY), "forward_then_revert", &forward_args(addr(COUNTER), 250, "increment"));
    assert_eq!(outcome.status, Status::Revert { reason: b"undo".to_vec() });
    assert_eq!(host.state, before, "nothing of the caller or the callee stays");

    // The same call without the revert moves the value.
    assert_success(&host.call_actor(addr(PROXY), "forward", &forward_args(addr(COUNTER), 250, "increment")));
    assert_eq!(host.balance_of(addr(PROXY)), 750);
    assert_eq!(host.balance_of(addr(COUNTER)), 250);

    // More value than the caller holds is the host's refusal: the caller traps.
    let outcome = host.call_actor(addr(PROXY), "forward", &forward_args(addr(COUNTER), 10_000, "increment"));
    assert_eq!(trap_code(&outcome), ExecCode::ActorBalance);
    let outcome = host.call_actor(addr(PROXY), "forward", &forward_args(addr(0x99), 0, "x"));
    assert_eq!(trap_code(&outcome), ExecCode::NoActor);
}

#[test]
fn read_only_refuses_writes_even_through_nested_calls() {
    let mut host = nested_host();
    let mut read = host.request(addr(TOUCHY), "touch", b"");
    read.read_only = true;
    let outcome = host.run(read);
    assert_eq!(trap_code(&outcome), ExecCode::ReadOnlyViolation);

    let mut peek = host.request(addr(TOUCHY), "peek", b"");
    peek.read_only = true;
    assert_success(&host.run(peek));

    // relay -> touch (itself): the nested write is refused and the whole read fails.
    let mut relay = host.request(addr(TOUCHY), "relay", &addr(TOUCHY).0);
    relay.read_only = true;
    assert_eq!(trap_code(&host.run(relay)), ExecCode::ReadOnlyViolation);
    assert_eq!(host.storage(addr(TOUCHY), b"touched"), None);

    // Value attached to a call is a write too.
    let mut paid = host.request(addr(PROXY), "forward", &forward_args(addr(COUNTER), 1, "get"));
    paid.read_only = true;
    assert_eq!(trap_code(&host.run(paid)), ExecCode::ReadOnlyViolation);
    // A read-only call of a read-only handler is fine.
    let mut get = host.request(addr(COUNTER), "get", b"");
    get.read_only = true;
    assert_success(&host.run(get));

    // Not read-only, the same relay writes.
    let relay = host.request(addr(TOUCHY), "relay", &addr(TOUCHY).0);
    let outcome = host.run(relay);
    assert_success(&outcome);
    assert_eq!(outcome.result, [0]);
    assert_eq!(host.storage(addr(TOUCHY), b"touched"), Some(&b"yes"[..]));
}

#[test]
fn capabilities_outside_the_manifest_are_refused() {
    let cases: &[(&str, &str, &[u8], Entitlements)] = &[
        ("counter", "increment", b"", grant(&[])),
        ("echo", "echo", b"x", grant(&[StorageKv])),
        ("pinger", "start", &[1; 20], grant(&[StorageKv])),
        ("alarm", "arm", &99u64.to_le_bytes(), grant(&[StorageKv])),
        ("readonly_write", "relay", &[1; 20], grant(&[StorageKv])),
    ];
    for (name, handler, payload, entitlements) in cases {
        let mut host = host();
        host.deploy(addr(1), &actor(name), *entitlements).unwrap();
        let outcome = host.call_actor(addr(1), handler, payload);
        assert_eq!(trap_code(&outcome), ExecCode::NotEntitled, "{name}.{handler}");
        assert!(host.state.storage.is_empty() && host.state.mailbox.is_empty());
    }
    // Value on a call needs econ.transfer besides actor.call.
    let mut host = host_with("proxy", PROXY, &[StorageKv, ActorCall]);
    host.deploy(addr(COUNTER), &actor("counter"), grant(&[StorageKv])).unwrap();
    host.credit(addr(PROXY), 10);
    let outcome = host.call_actor(addr(PROXY), "forward", &forward_args(addr(COUNTER), 1, "get"));
    assert_eq!(trap_code(&outcome), ExecCode::NotEntitled);
}

#[test]
fn metering_is_deterministic() {
    fn scenario(vm: Arc<Vm>) -> Vec<(Status, Vec<u8>, u64, u64)> {
        let mut host = MockHost::new(vm);
        let all = Entitlements::all();
        for (byte, name) in [(1, "counter"), (2, "ledger"), (3, "echo"), (4, "proxy")] {
            host.deploy(addr(byte), &actor(name), all).unwrap();
        }
        host.deploy(addr(5), &actor("infinite_loop"), all).unwrap();
        let mut mint_args = addr(9).0.to_vec();
        mint_args.extend(77u64.to_le_bytes());
        let mut spin = host.request(addr(5), "spin", b"");
        spin.cycles_limit = 123_457;
        let outcomes: Vec<Outcome> = vec![
            host.call_actor(addr(1), "increment", b""),
            host.call_actor(addr(1), "increment", b""),
            host.call_actor(addr(2), "mint", &mint_args),
            host.call_actor(addr(3), "echo", &[5; 1000]),
            host.call_actor(addr(4), "forward", &forward_args(addr(1), 0, "increment")),
            host.call_actor(addr(1), "bump_and_revert", b""),
            host.run(spin),
        ];
        outcomes.into_iter().map(|o| (o.status, o.result, o.cycles_used, o.cells_used)).collect()
    }
    let vm = Arc::new(Vm::new());
    let cold = scenario(Arc::clone(&vm));
    let warm = scenario(Arc::clone(&vm));
    let fresh = scenario(Arc::new(Vm::with_cache_capacity(1)));
    assert_eq!(cold, warm, "a cached module meters like a fresh compile");
    assert_eq!(cold, fresh);
    assert!(cold.iter().all(|(_, _, cycles, _)| *cycles > 0));
    // Pinned: a change of prices or of wasmi's fuel schedule must be a visible decision (it is a
    // consensus change). The first increment finds no value; the second copies 8 more bytes.
    assert_eq!(cold[0].2, 10_120);
    assert_eq!(cold[1].2, 10_120 + 8 * CYCLES_PER_BYTE_COPIED);
}

#[test]
fn budgets_below_the_invocation_price_and_cells_limits() {
    let mut host = host_with("counter", COUNTER, &[StorageKv]);
    let code = actor("counter");
    let entry = host.vm.compile(&code).unwrap().info.invoke_cycles();
    assert_eq!(
        entry,
        CYCLES_PER_INVOKE + code.len() as u64 / CODE_BYTES_PER_CYCLE + CYCLES_PER_INITIAL_MEMORY_PAGE,
        "one page of initial memory"
    );
    let mut tiny = host.request(addr(COUNTER), "increment", b"");
    tiny.cycles_limit = entry - 1;
    let outcome = host.run(tiny);
    assert_eq!(trap_code(&outcome), ExecCode::OutOfCycles);
    assert_eq!(outcome.cycles_used, entry - 1);

    // A host call that cannot be paid empties the budget.
    let mut short = host.request(addr(COUNTER), "increment", b"");
    short.cycles_limit = entry + CYCLES_STORAGE_READ;
    let outcome = host.run(short);
    assert_eq!(trap_code(&outcome), ExecCode::OutOfCycles);
    assert_eq!(outcome.cycles_used, entry + CYCLES_STORAGE_READ);

    let mut no_cells = host.request(addr(COUNTER), "increment", b"");
    no_cells.cells_limit = 12;
    let outcome = host.run(no_cells);
    assert_eq!(trap_code(&outcome), ExecCode::OutOfCells);
    assert_eq!(outcome.cells_used, 0);
    assert_eq!(host.storage(addr(COUNTER), b"count"), None);
}

/// Transfers the 16-byte amount at input 20..36 to the address at input 0..20.
const PAYER: &str = r#"(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "transfer" (func $transfer (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "pay")
    (call $input_read (i32.const 0))
    (call $transfer (i32.const 0) (i32.const 20))))"#;

#[test]
fn a_transfer_that_creates_an_account_pays_for_the_record() {
    let mut host = host();
    host.deploy(addr(1), &wasm(PAYER), grant(&[EconTransfer])).unwrap();
    host.credit(addr(1), 1_000);
    host.credit(addr(2), 1);
    let pay = |to: u8, amount: u128| [&addr(to).0[..], &amount.to_le_bytes()].concat();
    let existing = host.call_actor(addr(1), "pay", &pay(2, 10));
    assert_success(&existing);
    assert_eq!(existing.cells_used, 0);
    let fresh = host.call_actor(addr(1), "pay", &pay(3, 10));
    assert_success(&fresh);
    assert_eq!(fresh.cells_used, CELLS_NEW_ACCOUNT);
    assert_eq!(fresh.cycles_used, existing.cycles_used + CYCLES_NEW_ACCOUNT);
    assert_eq!(CYCLES_TRANSFER + CYCLES_NEW_ACCOUNT, drover_types::params::TRANSFER_CYCLES);
    // A zero transfer creates nothing and pays nothing more.
    let nothing = host.call_actor(addr(1), "pay", &pay(4, 0));
    assert_eq!((nothing.cells_used, nothing.cycles_used), (0, existing.cycles_used));
    // Without the cells for the record, nothing moves.
    let mut short = host.request(addr(1), "pay", &pay(5, 10));
    short.cells_limit = CELLS_NEW_ACCOUNT - 1;
    assert_eq!(trap_code(&host.run(short)), ExecCode::OutOfCells);
    assert_eq!((host.balance_of(addr(5)), host.balance_of(addr(1))), (0, 980));
}

#[test]
fn bad_pointers_trap_with_an_argument_error() {
    let code = wasm(
        r#"(module
            (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
            (import "drover" "input_read" (func $input_read (param i32)))
            (import "drover" "caller" (func $caller (param i32)))
            (memory (export "memory") 1)
            (func (export "oob_key") (call $set (i32.const 65530) (i32.const 100) (i32.const 0) (i32.const 1)))
            (func (export "negative_len") (call $set (i32.const 0) (i32.const -1) (i32.const 0) (i32.const 1)))
            (func (export "empty_key") (call $set (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)))
            (func (export "oob_input") (call $input_read (i32.const 65535)))
            (func (export "oob_caller") (call $caller (i32.const -4))))"#,
    );
    let mut host = host();
    host.deploy(addr(1), &code, Entitlements::all()).unwrap();
    for handler in ["oob_key", "negative_len", "empty_key", "oob_caller"] {
        let outcome = host.call_actor(addr(1), handler, b"");
        assert_eq!(trap_code(&outcome), ExecCode::HostCallArgument, "{handler}");
    }
    assert_success(&host.call_actor(addr(1), "oob_input", b""));
    let outcome = host.call_actor(addr(1), "oob_input", b"ab");
    assert_eq!(trap_code(&outcome), ExecCode::HostCallArgument);
}

#[test]
fn storage_iteration_walks_a_prefix_with_a_cursor_and_pays_for_every_entry_it_reads() {
    // collect_a / collect_b walk every key with the prefix "a:" / "b:" and return the keys
    // joined by ','. `fill` writes a:1, a:2, a:3, b:1; `fill_b` only b:1.
    let code = wasm(
        r#"(module
            (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
            (import "drover" "storage_next" (func $next (param i32 i32 i32 i32 i32 i32 i32 i32) (result i64)))
            (import "drover" "set_result" (func $set_result (param i32 i32)))
            (memory (export "memory") 1)
            (data (i32.const 0) "a:1a:2a:3b:1")
            (func (export "fill")
              (call $set (i32.const 0) (i32.const 3) (i32.const 0) (i32.const 1))
              (call $set (i32.const 3) (i32.const 3) (i32.const 0) (i32.const 1))
              (call $set (i32.const 6) (i32.const 3) (i32.const 0) (i32.const 1))
              (call $set (i32.const 9) (i32.const 3) (i32.const 0) (i32.const 1)))
            (func (export "fill_b")
              (call $set (i32.const 9) (i32.const 3) (i32.const 0) (i32.const 1)))
            (func $collect (param $prefix i32)
              (local $r i64) (local $klen i32) (local $out i32) (local $cursor_len i32)
              (local.set $out (i32.const 1000))
              (block $done
                (loop $walk
                  ;; prefix (2 bytes) at $prefix; cursor at 100; key buffer 200; value buffer 300
                  (local.set $r (call $next (local.get $prefix) (i32.const 2) (i32.const 100) (local.get $cursor_len)
                                      (i32.const 200) (i32.const 32) (i32.const 300) (i32.const 32)))
                  (br_if $done (i64.lt_s (local.get $r) (i64.const 0)))
                  (local.set $klen (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))))
                  (memory.copy (local.get $out) (i32.const 200) (local.get $klen))
                  (local.set $out (i32.add (local.get $out) (local.get $klen)))
                  (i32.store8 (local.get $out) (i32.const 44))
                  (local.set $out (i32.add (local.get $out) (i32.const 1)))
                  (memory.copy (i32.const 100) (i32.const 200) (local.get $klen))
                  (local.set $cursor_len (local.get $klen))
                  (br $walk)))
              (call $set_result (i32.const 1000) (i32.sub (local.get $out) (i32.const 1000))))
            (func (export "collect_a") (call $collect (i32.const 0)))
            (func (export "collect_b") (call $collect (i32.const 9))))"#,
    );
    let mut host = host();
    host.deploy(addr(1), &code, grant(&[StorageKv])).unwrap();
    host.deploy(addr(2), &code, grant(&[StorageKv])).unwrap();
    assert_success(&host.call_actor(addr(1), "fill", b""));
    assert_success(&host.call_actor(addr(2), "fill_b", b""));
    let outcome = host.call_actor(addr(1), "collect_a", b"");
    assert_success(&outcome);
    assert_eq!(outcome.result, b"a:1,a:2,a:3,");
    // Finding b:1 behind a:1, a:2 and a:3 reads those three too, and each costs a step plus
    // its key and value bytes: what the host did, not what the actor kept.
    let behind = host.call_actor(addr(1), "collect_b", b"");
    let alone = host.call_actor(addr(2), "collect_b", b"");
    assert_eq!((behind.result.as_slice(), alone.result.as_slice()), (&b"b:1,"[..], &b"b:1,"[..]));
    let skipped = 3 * (drover_vm::meter::CYCLES_STORAGE_NEXT + 3 + 1);
    assert_eq!(behind.cycles_used, alone.cycles_used + skipped);
}

#[test]
fn every_abi_function_links_with_its_documented_signature() {
    let ty = |t: &drover_vm::abi::Ty| match t {
        drover_vm::abi::Ty::I32 => "i32",
        drover_vm::abi::Ty::I64 => "i64",
    };
    let imports: String = HOST_FUNCTIONS
        .iter()
        .map(|f| {
            let params: Vec<_> = f.params.iter().map(ty).collect();
            let results: Vec<_> = f.results.iter().map(ty).collect();
            format!(
                "(import \"drover\" \"{}\" (func (param {}) (result {})))\n",
                f.name,
                params.join(" "),
                results.join(" ")
            )
        })
        .collect();
    let code = wasm(&format!("(module {imports} (memory (export \"memory\") 1) (func (export \"noop\")))"));
    let info = drover_vm::validate(&code).unwrap();
    assert_eq!(info.imports.len(), HOST_FUNCTIONS.len());
    let mut host = host();
    host.deploy(addr(1), &code, Entitlements::NONE).unwrap();
    assert_success(&host.call_actor(addr(1), "noop", b""));
}

#[test]
fn context_reaches_the_actor() {
    let code = wasm(
        r#"(module
            (import "drover" "caller" (func $caller (param i32)))
            (import "drover" "self_address" (func $self (param i32)))
            (import "drover" "origin" (func $origin (param i32)))
            (import "drover" "value_received" (func $value (param i32)))
            (import "drover" "block_height" (func $height (result i64)))
            (import "drover" "block_timestamp_ms" (func $ts (result i64)))
            (import "drover" "balance_of" (func $balance (param i32 i32)))
            (import "drover" "set_result" (func $set_result (param i32 i32)))
            (memory (export "memory") 1)
            (func (export "whoami")
              (call $caller (i32.const 0))
              (call $self (i32.const 20))
              (call $origin (i32.const 40))
              (call $value (i32.const 60))
              (i64.store (i32.const 76) (call $height))
              (i64.store (i32.const 84) (call $ts))
              (call $balance (i32.const 20) (i32.const 92))
              (call $set_result (i32.const 0) (i32.const 108))))"#,
    );
    let mut host = host();
    host.deploy(addr(1), &code, Entitlements::NONE).unwrap();
    host.credit(addr(1), 5);
    host.block_height = 42;
    host.timestamp_ms = 42_000;
    let mut request = host.request(addr(1), "whoami", b"");
    request.context.caller = addr(2);
    request.context.origin = addr(3);
    request.context.value = 1 << 100;
    host.credit(addr(2), 1 << 100);
    let outcome = host.run(request);
    assert_success(&outcome);
    let r = &outcome.result;
    assert_eq!(&r[0..20], &addr(2).0);
    assert_eq!(&r[20..40], &addr(1).0);
    assert_eq!(&r[40..60], &addr(3).0);
    assert_eq!(&r[60..76], &(1u128 << 100).to_le_bytes());
    assert_eq!(u64_le(&r[76..84]), 42);
    assert_eq!(u64_le(&r[84..92]), 42_000);
    assert_eq!(&r[92..108], &(5 + (1u128 << 100)).to_le_bytes(), "value arrives before the run");
}

#[test]
fn invoke_refuses_depth_beyond_the_limit_directly() {
    let vm = Vm::new();
    let module = vm.compile(&actor("counter")).unwrap();
    let mut host = MockHost::new(Arc::new(Vm::new()));
    let invocation = Invocation {
        handler: "get",
        payload: b"",
        context: CallContext {
            self_address: addr(1),
            caller: addr(2),
            origin: addr(2),
            block_height: 1,
            timestamp_ms: 0,
            value: 0,
            depth: drover_vm::limits::MAX_CALL_DEPTH + 1,
        },
        entitlements: Entitlements::all(),
        cycles_limit: 1_000_000,
        cells_limit: 0,
        read_only: true,
        load_cycles: 0,
    };
    let outcome = vm.invoke(&module, &invocation, &mut host);
    assert_eq!(trap_code(&outcome), ExecCode::CallDepth);
    assert_eq!(vm.cached_modules(), 1);
    let again = vm.compile(&actor("counter")).unwrap();
    assert!(Arc::ptr_eq(&module, &again), "compiled once, then cached");
    let loaded = vm.load(&module.code_hash(), || panic!("cached: no fetch")).unwrap();
    assert!(Arc::ptr_eq(&module, &loaded));
    let cold = Vm::new();
    let wrong = cold.load(&module.code_hash(), || Ok(actor("echo"))).unwrap_err();
    assert_eq!(wrong.code(), ExecCode::Internal);
}

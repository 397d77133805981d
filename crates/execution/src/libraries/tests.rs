//! Libraries end to end through `execute_block`: publish, run from an actor in its own
//! context, the manifest intersection, pinned versions across a re-publish, removal.

use crate::testing::{Chain, RICH, example};
use drover_state::keys::storage_key;
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, TxStatus,
    args::ArgsBuilder,
    exec_error::ExecCode,
    library::{LIBRARY_ADDRESS, LibraryCall},
    payload::{Manifest, Message},
};

const PUBLISHER: Address = Address([0x9b; 20]);
const USER: Address = Address([0x05; 20]);

fn publish(chain: &mut Chain, code: Vec<u8>, manifest: &[&str]) -> Option<ExecCode> {
    let call = LibraryCall::Publish {
        name: "fixed".into(),
        code,
        manifest: Manifest::new(manifest.iter().map(|m| m.to_string()).collect()),
    };
    let tx = chain.tx(PUBLISHER, Some(LIBRARY_ADDRESS), call.message().encode(), 0);
    chain.block(&[tx]).receipts.remove(0).error.map(|e| e.code)
}

fn input(version: u32, rest: &[u8]) -> Vec<u8> {
    [&PUBLISHER.0[..], &version.to_le_bytes(), rest].concat()
}

fn mul_div(a: u64, b: u64, c: u64) -> Vec<u8> {
    [a.to_le_bytes(), b.to_le_bytes(), c.to_le_bytes()].concat()
}

/// An inline library whose `mul_div` answers a constant, to tell versions apart.
fn constant_library(answer: u64) -> Vec<u8> {
    crate::testing::inline(&format!(
        r#"(module
            (import "drover" "set_result" (func $set_result (param i32 i32)))
            (memory (export "memory") 1)
            (func (export "mul_div")
              (i64.store (i32.const 0) (i64.const {answer}))
              (call $set_result (i32.const 0) (i32.const 8))))"#
    ))
}

#[test]
fn an_actor_runs_a_library_in_its_own_context() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    assert_eq!(publish(&mut chain, example("lib_fixed"), &["storage.kv"]), None);
    let user = chain.deploy(USER, example("lib_user"), &["storage.kv"], 0);
    let outcome = chain.call(USER, user, "compute", &input(0, &mul_div(6, 7, 2)));
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
    assert_eq!(chain.state[&storage_key(&user, b"out")], 21u64.to_le_bytes().to_vec());
    // The library writes the caller's storage, not its own.
    let outcome = chain.call(USER, user, "memo", &input(0, b"remember me"));
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
    assert_eq!(chain.state[&storage_key(&user, b"memo")], b"remember me".to_vec());
    assert!(!chain.state.contains_key(&storage_key(&LIBRARY_ADDRESS, b"memo")));
    // A library failure reverts the caller with the library's answer.
    let outcome = chain.call(USER, user, "compute", &input(0, &mul_div(1, 1, 0)));
    assert_eq!(outcome.receipts[0].revert_reason.as_deref(), Some("division by zero"));
}

#[test]
fn a_library_gets_only_what_both_manifests_grant() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    // Published without storage.kv: remember cannot write even for a caller that may.
    assert_eq!(publish(&mut chain, example("lib_fixed"), &[]), None);
    let user = chain.deploy(USER, example("lib_user"), &["storage.kv"], 0);
    let outcome = chain.call(USER, user, "memo", &input(0, b"x"));
    assert_ne!(outcome.receipts[0].status, TxStatus::Success);
    let reason = outcome.receipts[0].revert_reason.clone().unwrap_or_default();
    assert!(reason.contains("E1301"), "{reason}");
    assert!(!chain.state.contains_key(&storage_key(&user, b"memo")));
}

#[test]
fn a_library_gets_no_more_than_its_caller_may() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    // Published with storage.kv, called by an actor without it: the library cannot write.
    assert_eq!(publish(&mut chain, example("lib_fixed"), &["storage.kv"]), None);
    let (deploy, user) = chain.deploy_tx(USER, example("lib_user"), &[], b"", 0);
    let deployed = chain.block(&[deploy]);
    assert_eq!(deployed.receipts[0].status, TxStatus::Success, "{:?}", deployed.receipts[0]);
    let outcome = chain.call(USER, user, "memo", &input(0, b"x"));
    assert_ne!(outcome.receipts[0].status, TxStatus::Success);
    let reason = outcome.receipts[0].revert_reason.clone().unwrap_or_default();
    assert!(reason.contains("E1301"), "{reason}");
    assert!(!chain.state.contains_key(&storage_key(&user, b"memo")));
}

#[test]
fn a_pinned_version_survives_a_republish_and_removal_stops_every_version() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    assert_eq!(publish(&mut chain, constant_library(1), &[]), None);
    assert_eq!(publish(&mut chain, constant_library(2), &[]), None);
    let user = chain.deploy(USER, example("lib_user"), &["storage.kv"], 0);
    let answer = |chain: &mut Chain, version: u32| {
        let outcome = chain.call(USER, user, "compute", &input(version, &mul_div(0, 0, 1)));
        assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
        u64::from_le_bytes(chain.state[&storage_key(&user, b"out")].clone().try_into().unwrap())
    };
    assert_eq!(answer(&mut chain, 1), 1, "pinned to version 1");
    assert_eq!(answer(&mut chain, 0), 2, "the latest");
    let outcome = chain.call(USER, user, "compute", &input(3, &mul_div(0, 0, 1)));
    assert!(outcome.receipts[0].revert_reason.clone().unwrap_or_default().contains("E1852"));
    let remove = LibraryCall::Remove { name: "fixed".into() }.message().encode();
    let tx = chain.tx(PUBLISHER, Some(LIBRARY_ADDRESS), remove.clone(), 0);
    assert_eq!(chain.block(&[tx]).receipts[0].status, TxStatus::Success);
    for version in [0, 1] {
        let outcome = chain.call(USER, user, "compute", &input(version, &mul_div(0, 0, 1)));
        assert!(outcome.receipts[0].revert_reason.clone().unwrap_or_default().contains("E1852"), "{version}");
    }
    let tx = chain.tx(PUBLISHER, Some(LIBRARY_ADDRESS), remove, 0);
    assert_eq!(chain.block(&[tx]).receipts[0].error.as_ref().map(|e| e.code), Some(ExecCode::UnknownLibrary));
}

#[test]
fn publishing_validates_like_a_deploy() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH)]);
    assert_eq!(publish(&mut chain, b"not wasm".to_vec(), &[]), Some(ExecCode::InvalidWasm));
    assert_eq!(publish(&mut chain, example("lib_fixed"), &["root"]), Some(ExecCode::UnknownEntitlement));
    assert_eq!(publish(&mut chain, example("float_op"), &[]), Some(ExecCode::FloatInstruction));
}

#[test]
fn publishing_takes_the_deploy_manifest_forms() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH)]);
    let send = |chain: &mut Chain, name: &str, manifest: Vec<u8>| {
        let args = ArgsBuilder::new().text("name", name).bytes("code", &example("lib_fixed")).raw("manifest", manifest);
        let message = Message { handler: "publish".into(), payload: args.encode() };
        let tx = chain.tx(PUBLISHER, Some(LIBRARY_ADDRESS), message.encode(), 0);
        chain.block(&[tx]).receipts.remove(0).error.map(|e| e.code)
    };
    // DESIGN's `{"entitlements": [...]}`, with ids or none, and the key-less `{}`.
    for (name, manifest) in [
        ("ids", Manifest::new(vec!["storage.kv".into()])),
        ("none", Manifest::new(Vec::new())),
        ("keyless", Manifest::default()),
    ] {
        assert_eq!(send(&mut chain, name, manifest.encode()), None, "{name}");
    }
    // A bare list (`["storage.kv"]`, the form the library actor used to take) is not a
    // `publish` the validity rule admits: `library::tests` checks the refusal.
}

#[test]
fn publishing_again_after_a_removal_does_not_revive_older_versions() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    assert_eq!(publish(&mut chain, constant_library(1), &[]), None);
    let user = chain.deploy(USER, example("lib_user"), &["storage.kv"], 0);
    let remove = LibraryCall::Remove { name: "fixed".into() }.message().encode();
    let tx = chain.tx(PUBLISHER, Some(LIBRARY_ADDRESS), remove, 0);
    assert_eq!(chain.block(&[tx]).receipts[0].status, TxStatus::Success);
    assert_eq!(publish(&mut chain, constant_library(2), &[]), None);
    let outcome = chain.call(USER, user, "compute", &input(0, &mul_div(0, 0, 1)));
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "the latest (version 2) runs");
    assert_eq!(chain.state[&storage_key(&user, b"out")], 2u64.to_le_bytes().to_vec());
    let pinned = chain.call(USER, user, "compute", &input(1, &mul_div(0, 0, 1)));
    let reason = pinned.receipts[0].revert_reason.clone().unwrap_or_default();
    assert!(reason.contains("E1852"), "version 1 was removed and stays removed: {reason}");
    // The publisher's listing (which is its count): one library, however often published.
    let count = &chain.state[&storage_key(&LIBRARY_ADDRESS, &drover_state::library::count_key(&PUBLISHER))];
    assert_eq!(drover_state::decode_count(count), Ok(1));
    let listed = crate::testing::listed(&chain.state, &drover_state::library::libraries_listing(&PUBLISHER));
    assert_eq!(listed, [drover_state::library::name_hash("fixed").0.to_vec()]);
}

/// A library `fixed` whose `remember` writes "memo" in its caller's storage, then reverts.
const WRITE_THEN_REVERT: &str = r#"(module
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "memo")
  (func (export "remember")
    (call $set (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 4))
    (call $revert (i32.const 0) (i32.const 4))))"#;

/// An actor whose `go` (input: the publisher) writes "before", runs `fixed.remember`, ignores
/// its failure and writes "after".
const CARRY_ON: &str = r#"(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (import "drover" "library_call"
    (func $library_call (param i32 i32 i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "fixed")
  (data (i32.const 16) "remember")
  (data (i32.const 32) "before")
  (data (i32.const 48) "after")
  (func (export "go")
    (call $input_read (i32.const 1024))
    (call $set (i32.const 32) (i32.const 6) (i32.const 32) (i32.const 6))
    (drop (call $library_call (i32.const 1024) (i32.const 0) (i32.const 5) (i32.const 0)
      (i32.const 16) (i32.const 8) (i32.const 2048) (i32.const 0) (i64.const 0)))
    (call $set (i32.const 48) (i32.const 5) (i32.const 48) (i32.const 5))))"#;

#[test]
fn a_failed_library_call_undoes_only_its_own_writes() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    assert_eq!(publish(&mut chain, crate::testing::inline(WRITE_THEN_REVERT), &["storage.kv"]), None);
    let user = chain.deploy(USER, crate::testing::inline(CARRY_ON), &["storage.kv"], 0);
    let outcome = chain.call(USER, user, "go", &PUBLISHER.0);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
    assert!(chain.state.contains_key(&storage_key(&user, b"before")), "the caller's write before the call stays");
    assert!(chain.state.contains_key(&storage_key(&user, b"after")), "the caller carries on");
    assert!(!chain.state.contains_key(&storage_key(&user, b"memo")), "the library's write is undone");
}

/// A library `fixed` whose `mul_div` (input: its own publisher and a version, 24 bytes) runs
/// itself again, reverting with the nested call's answer when that fails.
const RECURSIVE: &str = r#"(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (import "drover" "library_call"
    (func $library_call (param i32 i32 i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "return_data_len" (func $return_data_len (result i32)))
  (import "drover" "return_data_read" (func $return_data_read (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "fixed")
  (data (i32.const 16) "mul_div")
  (func (export "mul_div")
    (call $input_read (i32.const 1024))
    (if (call $library_call (i32.const 1024) (i32.const 0) (i32.const 5) (i32.const 0)
          (i32.const 16) (i32.const 7) (i32.const 1024) (i32.const 24) (i64.const 0))
      (then
        (call $return_data_read (i32.const 4096))
        (call $revert (i32.const 4096) (call $return_data_len))))))"#;

#[test]
fn nested_library_calls_stop_at_the_call_depth_limit() {
    let mut chain = Chain::new(&[(PUBLISHER, RICH), (USER, RICH)]);
    assert_eq!(publish(&mut chain, crate::testing::inline(RECURSIVE), &[]), None);
    let user = chain.deploy(USER, example("lib_user"), &["storage.kv"], 0);
    let outcome = chain.call(USER, user, "compute", &input(0, &[&PUBLISHER.0[..], &[0; 4]].concat()));
    assert_ne!(outcome.receipts[0].status, TxStatus::Success);
    let reason = outcome.receipts[0].revert_reason.clone().unwrap_or_default();
    assert!(reason.contains("E1210"), "{reason}");
}

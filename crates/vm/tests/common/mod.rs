//! Shared helpers: compiling the example actors of `actors/` and a host with some deployed.

#![allow(dead_code)]

use drover_types::Address;
use drover_vm::{Entitlement, Entitlements, MockHost, Outcome, Status, Vm};
use std::sync::Arc;

/// The binary of `actors/{name}.wat`.
pub(crate) fn actor(name: &str) -> Vec<u8> {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    wat::parse_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub(crate) fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module parses")
}

pub(crate) fn addr(byte: u8) -> Address {
    Address([byte; 20])
}

pub(crate) fn grant(list: &[Entitlement]) -> Entitlements {
    list.iter().fold(Entitlements::NONE, |set, e| set.with(*e))
}

pub(crate) fn host() -> MockHost {
    MockHost::new(Arc::new(Vm::new()))
}

/// A host with `name` deployed at `addr(byte)`.
pub(crate) fn host_with(name: &str, byte: u8, entitlements: &[Entitlement]) -> MockHost {
    let mut host = host();
    host.deploy(addr(byte), &actor(name), grant(entitlements)).expect("example deploys");
    host
}

pub(crate) fn u64_le(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
}

#[track_caller]
pub(crate) fn assert_success(outcome: &Outcome) {
    assert_eq!(outcome.status, Status::Success, "{outcome:?}");
}

#[track_caller]
pub(crate) fn trap_code(outcome: &Outcome) -> drover_types::exec_error::ExecCode {
    match &outcome.status {
        Status::Trap(e) => e.code,
        other => panic!("expected a trap, got {other:?}"),
    }
}

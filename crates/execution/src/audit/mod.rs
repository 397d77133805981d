//! The cost audit: every host function and every system-actor call, run at its most expensive
//! (`cases`), must do work within a constant of what it paid.
//!
//! Each measured block runs through [`Chain::audit`]: a reader that counts every state lookup
//! and the bytes it answers, and a VM that has compiled nothing (so code is read from the state,
//! as on a node whose cache missed). The work its transactions did beyond an empty block's is
//! held against the cycles and cells they paid by [`Work::assert_paid`]: at most one lookup per
//! `AUDIT_CYCLES_PER_LOOKUP` (500) cycles, `AUDIT_BYTES_PER_CYCLE` (4) bytes read or written per
//! cycle, `AUDIT_GROWTH_BYTES_PER_CELL` (64) bytes of new state per cell. An operation whose
//! work grows with something it does not pay for (the deletions a walk steps over, the accounts
//! a transfer creates) fails here. Each case is a test of its own, and a test checks that the
//! cases cover every host function of the ABI and every handler of every system actor. Time is
//! not measured here: `cargo bench -p drover-execution --bench costs` runs the same cases in a
//! release build (`docs/actors.md`, "Metering").

#[macro_use]
mod cases;

use crate::testing::{Chain, RICH, Work};
use cases::{ALICE, BOB, Driver, Least};
use drover_types::{Address, TxStatus, VerifiedTransaction, chain_params::ChainParams};

/// The audit's driver: setup blocks run as in every test, measured blocks are audited.
struct Auditor(Chain);

impl Driver for Auditor {
    fn start(params: ChainParams) -> Self {
        let mut chain = Chain::new(&[(ALICE, RICH), (BOB, RICH)]);
        chain.limits = crate::testing::LARGE_LIMITS;
        chain.state.insert(drover_state::governance::params_state_key(), cases::roomy(params).encode());
        Auditor(chain)
    }

    fn height(&self) -> u64 {
        self.0.height
    }

    fn tx(&mut self, sender: Address, to: Option<Address>, payload: Vec<u8>, value: u128) -> VerifiedTransaction {
        self.0.tx(sender, to, payload, value)
    }

    #[track_caller]
    fn setup(&mut self, txs: &[VerifiedTransaction]) {
        for receipt in self.0.block(txs).receipts {
            assert_eq!(receipt.status, TxStatus::Success, "setup: {:?}", receipt.error);
        }
    }

    #[track_caller]
    fn measure(&mut self, what: &str, txs: &[VerifiedTransaction], _ops: u64, status: TxStatus, least: Least) {
        let (outcome, work) = self.0.audit(txs);
        for receipt in &outcome.receipts {
            assert_eq!(receipt.status, status, "{what}: {:?}", receipt.error);
        }
        work.assert_paid(what);
        assert!(
            work.lookups >= least.lookups
                && work.read_bytes >= least.read_bytes
                && work.growth_bytes >= least.growth_bytes,
            "{what} is not the worst case it claims ({least:?}): {work:?}"
        );
    }
}

macro_rules! define_tests {
    ($($family:ident: [$($case:ident: [$($name:literal),* $(,)?]),* $(,)?]),* $(,)?) => {
        $(mod $family {
            $(#[test]
            fn $case() {
                super::cases::$family::$case::<super::Auditor>();
            })*
        })*
    };
}

case_list!(define_tests);

#[test]
fn the_cases_cover_every_host_function_and_every_system_call() {
    let cases = cases::all::<Auditor>();
    for (family, mut names) in cases::required() {
        names.sort_unstable();
        assert_eq!(cases::covered(&cases, family), names, "{family}");
    }
    let families: Vec<&str> = cases::required().iter().map(|(family, _)| *family).collect();
    assert!(cases.iter().all(|case| families.contains(&case.0)));
}

#[test]
fn the_audit_fails_work_beyond_the_price() {
    let paid = Work { lookups: 10, read_bytes: 100, written_bytes: 100, growth_bytes: 64, cycles: 5_000, cells: 1 };
    paid.assert_paid("at the bounds");
    for unpaid in [
        Work { lookups: 11, ..paid },
        Work { read_bytes: 20_000, ..paid },
        Work { written_bytes: 20_000, ..paid },
        Work { growth_bytes: 65, ..paid },
    ] {
        let failed = std::panic::catch_unwind(|| unpaid.assert_paid("beyond"));
        assert!(failed.is_err(), "{unpaid:?} passed");
    }
}

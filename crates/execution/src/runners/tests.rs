//! Registry rules end to end through `execute_block` (each block also read through a reader that
//! checks every key is read once), plus a property test of stake conservation.

use crate::testing::{Chain, RICH, balance, listed};
use drover_state::runner::{
    Delegation, RunnerRecord, delegation_key, delegations_listing, runner_count_key, runner_key, runner_slot_key,
    state_key,
};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, ExecError, Receipt, TxStatus,
    exec_error::ExecCode,
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall, UNBONDING_BLOCKS},
};
use proptest::prelude::*;

const RUNNER: Address = Address([0x11; 20]);
const OTHER: Address = Address([0x12; 20]);
const DELEGATOR: Address = Address([0xd0; 20]);

fn chain() -> Chain {
    Chain::new(&[(RUNNER, RICH), (OTHER, RICH), (DELEGATOR, RICH)])
}

fn register() -> RegistryCall {
    RegistryCall::Register {
        rate_card: RateCard { price_per_job: 100 },
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 2 },
    }
}

fn send(chain: &mut Chain, sender: Address, call: &RegistryCall, value: u128) -> Receipt {
    let tx = chain.tx(sender, Some(RUNNER_REGISTRY_ADDRESS), call.message().encode(), value);
    chain.block(&[tx]).receipts.remove(0)
}

fn ok(chain: &mut Chain, sender: Address, call: &RegistryCall, value: u128) -> Receipt {
    let receipt = send(chain, sender, call, value);
    assert_eq!(receipt.status, TxStatus::Success, "{call:?}: {:?}", receipt.error);
    receipt
}

fn refused(chain: &mut Chain, sender: Address, call: &RegistryCall, value: u128, code: ExecCode) -> ExecError {
    let registry = balance(&chain.state, RUNNER_REGISTRY_ADDRESS);
    let receipt = send(chain, sender, call, value);
    let error = receipt.error.expect("a refusal");
    assert_eq!(error.code, code, "{call:?}: {}", error.message);
    assert_eq!(balance(&chain.state, RUNNER_REGISTRY_ADDRESS), registry, "a refusal keeps the value");
    error
}

fn record(chain: &Chain, runner: &Address) -> RunnerRecord {
    RunnerRecord::decode(&chain.state[&state_key(&runner_key(runner))]).expect("a runner record")
}

fn delegation(chain: &Chain, runner: &Address, delegator: &Address) -> Delegation {
    chain
        .state
        .get(&state_key(&delegation_key(runner, delegator)))
        .map_or_else(Delegation::default, |b| Delegation::decode(b).unwrap())
}

/// What the registry owes: stakes, delegations, pending unbondings and delegators' rewards.
fn owed(chain: &Chain) -> u128 {
    let mut total = 0;
    for runner in [RUNNER, OTHER, DELEGATOR] {
        if let Some(bytes) = chain.state.get(&state_key(&runner_key(&runner))) {
            let record = RunnerRecord::decode(bytes).unwrap();
            total += record.stake + record.delegator_rewards + record.unbonding.iter().map(|u| u.amount).sum::<u128>();
        }
    }
    // Delegations through each delegator's listing: one stored but not listed would leave the sum
    // short of the registry's account.
    for delegator in [RUNNER, OTHER, DELEGATOR] {
        for item in listed(&chain.state, &delegations_listing(&delegator)) {
            let runner = Address::from_slice(&item).unwrap();
            let bytes = &chain.state[&state_key(&delegation_key(&runner, &delegator))];
            let d = Delegation::decode(bytes).unwrap();
            total += d.amount + d.pending.iter().map(|u| u.amount).sum::<u128>();
        }
    }
    total
}

fn advance(chain: &mut Chain, blocks: u64) {
    for _ in 0..blocks {
        chain.block(&[]);
    }
}

#[test]
fn register_heartbeat_update_deregister_and_withdraw() {
    let mut chain = chain();
    refused(&mut chain, RUNNER, &register(), MIN_RUNNER_STAKE - 1, ExecCode::RunnerStake);
    let bad = RegistryCall::Register {
        rate_card: RateCard::default(),
        capabilities: Capabilities { job_types: vec!["Echo".into()], max_concurrent_jobs: 1 },
    };
    refused(&mut chain, RUNNER, &bad, MIN_RUNNER_STAKE, ExecCode::RunnerCapabilities);
    let before = balance(&chain.state, RUNNER);
    let receipt = ok(&mut chain, RUNNER, &register(), MIN_RUNNER_STAKE);
    assert_eq!(receipt.events[0].topic, "runner.registered");
    assert_eq!(balance(&chain.state, RUNNER), before - MIN_RUNNER_STAKE - receipt.fee.total());
    assert_eq!(balance(&chain.state, RUNNER_REGISTRY_ADDRESS), MIN_RUNNER_STAKE);
    let registered = record(&chain, &RUNNER);
    assert_eq!((registered.stake, registered.reputation, registered.slot), (MIN_RUNNER_STAKE, 80, Some(0)));
    refused(&mut chain, RUNNER, &register(), MIN_RUNNER_STAKE, ExecCode::RunnerRegistered);

    ok(&mut chain, RUNNER, &RegistryCall::Heartbeat, 0);
    assert_eq!(record(&chain, &RUNNER).last_heartbeat_height, chain.height - 1);
    refused(&mut chain, OTHER, &RegistryCall::Heartbeat, 0, ExecCode::UnknownRunner);
    refused(&mut chain, RUNNER, &RegistryCall::Heartbeat, 1, ExecCode::WasmTrap);
    let update =
        RegistryCall::Update { rate_card: Some(RateCard { price_per_job: 7 }), capabilities: None, paused: Some(true) };
    ok(&mut chain, RUNNER, &update, 5);
    let updated = record(&chain, &RUNNER);
    assert_eq!((updated.price_per_job, updated.paused, updated.stake), (7, true, MIN_RUNNER_STAKE + 5));

    ok(&mut chain, RUNNER, &RegistryCall::Deregister, 0);
    let gone = record(&chain, &RUNNER);
    assert!(gone.deregistered);
    assert_eq!((gone.stake, gone.unbonding[0].amount), (0, MIN_RUNNER_STAKE + 5));
    refused(&mut chain, RUNNER, &RegistryCall::Withdraw { runner: RUNNER }, 0, ExecCode::NothingToWithdraw);
    advance(&mut chain, UNBONDING_BLOCKS);
    let before = balance(&chain.state, RUNNER);
    let receipt = ok(&mut chain, RUNNER, &RegistryCall::Withdraw { runner: RUNNER }, 0);
    assert_eq!(balance(&chain.state, RUNNER), before + MIN_RUNNER_STAKE + 5 - receipt.fee.total());
    assert_eq!(balance(&chain.state, RUNNER_REGISTRY_ADDRESS), 0);
    // Registering again takes a slot again.
    ok(&mut chain, RUNNER, &register(), MIN_RUNNER_STAKE);
    assert_eq!(registered_runners(&chain), [RUNNER]);
}

/// The registered runners as the slots list them, checked against their records.
fn registered_runners(chain: &Chain) -> Vec<Address> {
    let count = chain.state.get(&state_key(&runner_count_key())).map_or(0, |b| drover_state::decode_count(b).unwrap());
    (0..count)
        .map(|slot| {
            let runner = drover_state::decode_address(&chain.state[&state_key(&runner_slot_key(slot))]).unwrap();
            let record = record(chain, &runner);
            assert!(!record.deregistered && record.slot == Some(slot), "slot {slot}: {record:?}");
            runner
        })
        .collect()
}

#[test]
fn the_registered_runners_list_gives_up_a_deregistered_runners_slot() {
    let mut chain = chain();
    for runner in [RUNNER, OTHER, DELEGATOR] {
        ok(&mut chain, runner, &register(), MIN_RUNNER_STAKE);
    }
    assert_eq!(registered_runners(&chain), [RUNNER, OTHER, DELEGATOR]);
    ok(&mut chain, RUNNER, &RegistryCall::Deregister, 0);
    assert_eq!(registered_runners(&chain), [DELEGATOR, OTHER]);
    assert_eq!(record(&chain, &RUNNER).slot, None);
    ok(&mut chain, OTHER, &RegistryCall::Deregister, 0);
    ok(&mut chain, DELEGATOR, &RegistryCall::Deregister, 0);
    assert!(registered_runners(&chain).is_empty());
    assert_eq!(chain.state.get(&state_key(&runner_count_key())), None, "an empty list leaves no count");
    ok(&mut chain, OTHER, &register(), MIN_RUNNER_STAKE);
    assert_eq!(registered_runners(&chain), [OTHER]);
}

#[test]
fn delegations_add_weight_and_unbond() {
    let mut chain = chain();
    ok(&mut chain, RUNNER, &register(), MIN_RUNNER_STAKE);
    refused(&mut chain, DELEGATOR, &RegistryCall::Delegate { runner: OTHER }, 10, ExecCode::UnknownRunner);
    refused(&mut chain, DELEGATOR, &RegistryCall::Delegate { runner: RUNNER }, 0, ExecCode::DelegationAmount);
    ok(&mut chain, DELEGATOR, &RegistryCall::Delegate { runner: RUNNER }, 300);
    ok(&mut chain, DELEGATOR, &RegistryCall::Delegate { runner: RUNNER }, 200);
    assert_eq!(record(&chain, &RUNNER).delegated_stake, 500);
    assert_eq!(delegation(&chain, &RUNNER, &DELEGATOR).amount, 500);
    let too_much = RegistryCall::Undelegate { runner: RUNNER, amount: 501 };
    refused(&mut chain, DELEGATOR, &too_much, 0, ExecCode::DelegationAmount);
    ok(&mut chain, DELEGATOR, &RegistryCall::Undelegate { runner: RUNNER, amount: 200 }, 0);
    assert_eq!(record(&chain, &RUNNER).delegated_stake, 300);
    let pending = delegation(&chain, &RUNNER, &DELEGATOR);
    assert_eq!((pending.amount, pending.pending.len()), (300, 1));
    refused(&mut chain, DELEGATOR, &RegistryCall::Withdraw { runner: RUNNER }, 0, ExecCode::NothingToWithdraw);
    advance(&mut chain, UNBONDING_BLOCKS);
    let before = balance(&chain.state, DELEGATOR);
    let receipt = ok(&mut chain, DELEGATOR, &RegistryCall::Withdraw { runner: RUNNER }, 0);
    assert_eq!(balance(&chain.state, DELEGATOR), before + 200 - receipt.fee.total());
    assert_eq!(owed(&chain), balance(&chain.state, RUNNER_REGISTRY_ADDRESS));
    assert_eq!(listed(&chain.state, &delegations_listing(&DELEGATOR)), [RUNNER.0.to_vec()]);
    // A deregistered runner takes no new delegation, but its delegators can still leave.
    ok(&mut chain, RUNNER, &RegistryCall::Deregister, 0);
    refused(&mut chain, DELEGATOR, &RegistryCall::Delegate { runner: RUNNER }, 1, ExecCode::UnknownRunner);
    ok(&mut chain, DELEGATOR, &RegistryCall::Undelegate { runner: RUNNER, amount: 300 }, 0);
    // Withdrawn to the last unit, the delegation goes, and leaves its delegator's listing.
    advance(&mut chain, UNBONDING_BLOCKS);
    ok(&mut chain, DELEGATOR, &RegistryCall::Withdraw { runner: RUNNER }, 0);
    assert_eq!(delegation(&chain, &RUNNER, &DELEGATOR), Delegation::default());
    assert!(listed(&chain.state, &delegations_listing(&DELEGATOR)).is_empty());
}

#[test]
fn unbondings_are_bounded_per_record() {
    let mut chain = chain();
    ok(&mut chain, RUNNER, &register(), MIN_RUNNER_STAKE);
    ok(&mut chain, DELEGATOR, &RegistryCall::Delegate { runner: RUNNER }, 100);
    for _ in 0..drover_types::runner::MAX_PENDING_UNBONDINGS {
        ok(&mut chain, DELEGATOR, &RegistryCall::Undelegate { runner: RUNNER, amount: 1 }, 0);
    }
    let one_more = RegistryCall::Undelegate { runner: RUNNER, amount: 1 };
    refused(&mut chain, DELEGATOR, &one_more, 0, ExecCode::TooManyUnbondings);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Whatever the sequence, the registry's account holds exactly what it owes.
    #[test]
    fn stake_is_conserved(ops in proptest::collection::vec((0..6u8, 0..3usize, 0..400u128), 1..20)) {
        let people = [RUNNER, OTHER, DELEGATOR];
        let mut chain = chain();
        for (op, who, amount) in ops {
            let sender = people[who];
            let target = people[(who + 1) % 2];
            let (call, value) = match op {
                0 => (register(), MIN_RUNNER_STAKE + amount),
                1 => (RegistryCall::Deregister, 0),
                2 => (RegistryCall::Delegate { runner: target }, amount),
                3 => (RegistryCall::Undelegate { runner: target, amount }, 0),
                4 => (RegistryCall::Withdraw { runner: if amount % 2 == 0 { sender } else { target } }, 0),
                _ => {
                    advance(&mut chain, amount as u64 % (UNBONDING_BLOCKS + 10));
                    continue;
                }
            };
            send(&mut chain, sender, &call, value);
            prop_assert_eq!(owed(&chain), balance(&chain.state, RUNNER_REGISTRY_ADDRESS));
            // Every registered runner is listed once, and nothing else is.
            let mut listed = registered_runners(&chain);
            listed.sort();
            let mut registered: Vec<_> = people
                .iter()
                .copied()
                .filter(|p| chain.state.get(&state_key(&runner_key(p))).is_some_and(|b| !RunnerRecord::decode(b).unwrap().deregistered))
                .collect();
            registered.sort();
            prop_assert_eq!(listed, registered);
            for runner in people {
                if let Some(bytes) = chain.state.get(&state_key(&runner_key(&runner))) {
                    let delegated: u128 = people.iter().map(|d| delegation(&chain, &runner, d).amount).sum();
                    prop_assert_eq!(RunnerRecord::decode(bytes).unwrap().delegated_stake, delegated);
                }
            }
        }
    }
}

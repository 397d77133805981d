//! Governance end to end through `execute_block`: lock, propose, vote, execute, and the new
//! parameters in force from the next block; rejection, expiry, the bounds and the refusals.

use crate::testing::{Chain, RICH, balance};
use drover_state::governance::{ProposalRecord, params_state_key, proposal_key, state_key};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, Receipt, TxStatus,
    chain_params::ChainParams,
    exec_error::ExecCode,
    governance::{GOVERNANCE_ADDRESS, GovernanceCall},
};

const ALICE: Address = Address([0xa1; 20]);
const BOB: Address = Address([0xb0; 20]);
/// The default `proposal_deposit`.
const DEPOSIT: u128 = 10 * drover_types::params::BASE_UNITS_PER_DRV;

/// A chain whose quorum floor is 1 base unit, so the tests' small locks decide by percent
/// (`the_quorum_has_a_floor` tests the default floor).
fn chain() -> Chain {
    let mut chain = Chain::new(&[(ALICE, RICH), (BOB, RICH)]);
    let params = ChainParams { min_quorum_weight: 1, ..ChainParams::default() };
    chain.state.insert(params_state_key(), params.encode());
    chain
}

fn send(chain: &mut Chain, sender: Address, call: &GovernanceCall, value: u128) -> Receipt {
    let tx = chain.tx(sender, Some(GOVERNANCE_ADDRESS), call.message().encode(), value);
    chain.block(&[tx]).receipts.remove(0)
}

fn ok(chain: &mut Chain, sender: Address, call: &GovernanceCall, value: u128) -> Receipt {
    let receipt = send(chain, sender, call, value);
    assert_eq!(receipt.status, TxStatus::Success, "{call:?}: {:?}", receipt.error);
    receipt
}

fn refused(chain: &mut Chain, sender: Address, call: &GovernanceCall, value: u128, code: ExecCode) {
    let receipt = send(chain, sender, call, value);
    assert_eq!(receipt.error.as_ref().map(|e| e.code), Some(code), "{call:?}: {:?}", receipt.error);
}

fn params(chain: &Chain) -> ChainParams {
    drover_state::governance::decode_params(&chain.state[&params_state_key()]).unwrap()
}

fn proposal(chain: &Chain, id: u64) -> ProposalRecord {
    ProposalRecord::decode(&chain.state[&state_key(&proposal_key(id))]).unwrap()
}

fn propose(target_cycles: u128) -> GovernanceCall {
    GovernanceCall::Propose {
        changes: vec![("target_cycles".into(), target_cycles)],
        description: "fuller blocks".into(),
    }
}

fn advance_to(chain: &mut Chain, height: u64) {
    while chain.height < height {
        chain.block(&[]);
    }
}

#[test]
fn a_passed_proposal_applies_from_the_next_block() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 1_000);
    ok(&mut chain, BOB, &GovernanceCall::Lock, 400);
    let before = balance(&chain.state, ALICE);
    let receipt = ok(&mut chain, ALICE, &propose(20_000_000), DEPOSIT);
    assert_eq!(balance(&chain.state, ALICE), before - DEPOSIT - receipt.fee.total());
    let made = proposal(&chain, 0);
    assert_eq!(made.quorum_weight, 140, "10 % of the 1,400 locked");
    ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    ok(&mut chain, BOB, &GovernanceCall::Vote { proposal: 0, support: false }, 0);
    refused(&mut chain, BOB, &GovernanceCall::Vote { proposal: 0, support: true }, 0, ExecCode::AlreadyVoted);
    // The weight is held by the vote.
    refused(&mut chain, BOB, &GovernanceCall::Unlock { amount: 400 }, 0, ExecCode::WeightInVote);
    refused(&mut chain, ALICE, &GovernanceCall::Execute { proposal: 0 }, 0, ExecCode::ProposalNotExecutable);
    advance_to(&mut chain, made.voting_ends_height);
    refused(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0, ExecCode::ProposalNotVoting);
    refused(&mut chain, BOB, &GovernanceCall::Execute { proposal: 0 }, 0, ExecCode::ProposalNotExecutable);
    advance_to(&mut chain, made.executable_height);
    assert_eq!(params(&chain).target_cycles, 10_000_000);
    let before = balance(&chain.state, ALICE);
    // Anyone executes; the deposit goes back to the proposer.
    let tx = chain.tx(BOB, Some(GOVERNANCE_ADDRESS), GovernanceCall::Execute { proposal: 0 }.message().encode(), 0);
    let outcome = chain.block(&[tx]);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0].error);
    assert_eq!(outcome.params.target_cycles, 10_000_000, "the executing block keeps the old value");
    assert_eq!(outcome.next_params.target_cycles, 20_000_000);
    assert_eq!(balance(&chain.state, ALICE), before + DEPOSIT);
    let next = chain.block(&[]);
    assert_eq!(next.params.target_cycles, 20_000_000, "in force from the next block");
    assert_eq!(proposal(&chain, 0).closed, Some(drover_state::governance::Closed::Executed));
    refused(&mut chain, BOB, &GovernanceCall::Execute { proposal: 0 }, 0, ExecCode::ProposalNotExecutable);
    // After the vote the weight comes back.
    ok(&mut chain, BOB, &GovernanceCall::Unlock { amount: 400 }, 0);
    assert_eq!(balance(&chain.state, GOVERNANCE_ADDRESS), 1_000);
}

#[test]
fn rejected_and_expired_proposals_close_without_changes() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 100);
    ok(&mut chain, BOB, &GovernanceCall::Lock, 300);
    ok(&mut chain, ALICE, &propose(30_000_000), DEPOSIT);
    ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    ok(&mut chain, BOB, &GovernanceCall::Vote { proposal: 0, support: false }, 0);
    ok(&mut chain, BOB, &propose(40_000_000), DEPOSIT);
    ok(&mut chain, BOB, &GovernanceCall::Vote { proposal: 1, support: true }, 0);
    let expires = proposal(&chain, 1).expires_height;
    let ends = proposal(&chain, 0).voting_ends_height;
    advance_to(&mut chain, ends);
    ok(&mut chain, BOB, &GovernanceCall::Execute { proposal: 0 }, 0);
    assert_eq!(proposal(&chain, 0).closed, Some(drover_state::governance::Closed::Rejected));
    advance_to(&mut chain, expires);
    ok(&mut chain, ALICE, &GovernanceCall::Execute { proposal: 1 }, 0);
    assert_eq!(proposal(&chain, 1).closed, Some(drover_state::governance::Closed::Expired));
    assert_eq!(params(&chain).target_cycles, 10_000_000, "neither applied");
    // Both deposits went back: only the locks stay.
    assert_eq!(balance(&chain.state, GOVERNANCE_ADDRESS), 400);
}

#[test]
fn proposals_are_checked_when_made() {
    let mut chain = chain();
    refused(&mut chain, ALICE, &propose(20_000_000), DEPOSIT - 1, ExecCode::ProposalDeposit);
    refused(&mut chain, ALICE, &propose(0), DEPOSIT, ExecCode::ProposalChanges);
    let unknown = GovernanceCall::Propose { changes: vec![("block_reward".into(), 1)], description: String::new() };
    refused(&mut chain, ALICE, &unknown, DEPOSIT, ExecCode::ProposalChanges);
    let zero_period =
        GovernanceCall::Propose { changes: vec![("voting_period_blocks".into(), 0)], description: String::new() };
    refused(&mut chain, ALICE, &zero_period, DEPOSIT, ExecCode::ProposalChanges);
    let empty = GovernanceCall::Propose { changes: Vec::new(), description: String::new() };
    refused(&mut chain, ALICE, &empty, DEPOSIT, ExecCode::ProposalChanges);
    let long = GovernanceCall::Propose { changes: vec![("timelock_blocks".into(), 5)], description: "x".repeat(1_025) };
    refused(&mut chain, ALICE, &long, DEPOSIT, ExecCode::ProposalChanges);
    refused(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 9, support: true }, 0, ExecCode::UnknownProposal);
    ok(&mut chain, ALICE, &propose(20_000_000), DEPOSIT);
    refused(&mut chain, BOB, &GovernanceCall::Vote { proposal: 0, support: true }, 0, ExecCode::NoVotingWeight);
    refused(&mut chain, BOB, &GovernanceCall::Lock, 0, ExecCode::GovernanceAmount);
    refused(&mut chain, BOB, &GovernanceCall::Unlock { amount: 1 }, 0, ExecCode::GovernanceAmount);
    assert_eq!(balance(&chain.state, GOVERNANCE_ADDRESS), DEPOSIT, "refusals keep nothing");
}

#[test]
fn no_proposal_or_pair_of_proposals_switches_deferred_work_off() {
    let mut chain = chain();
    let change = |changes: &[(&str, u128)]| GovernanceCall::Propose {
        changes: changes.iter().map(|(name, value)| ((*name).to_owned(), *value)).collect(),
        description: String::new(),
    };
    // Below the cells a timer fire, a delivery or a due entry reserves in a quarter of it.
    refused(&mut chain, ALICE, &change(&[("target_cells", 10_000)]), DEPOSIT, ExecCode::ProposalChanges);
    // A callback or an attached budget above a quarter of the cycle target.
    refused(&mut chain, ALICE, &change(&[("max_callback_cycles", 10_000_000)]), DEPOSIT, ExecCode::ProposalRelation);
    // A cycle target just below four attached budgets, and still above its own least value, so
    // the relation is what refuses it.
    let below_relation = 4 * ChainParams::default().max_attached_cycles - 1;
    assert!(below_relation >= drover_types::chain_params::MIN_TARGET_CYCLES);
    refused(
        &mut chain,
        ALICE,
        &change(&[("target_cycles", u128::from(below_relation))]),
        DEPOSIT,
        ExecCode::ProposalRelation,
    );
    // Each of these keeps the relation alone; applied one after the other, the second would
    // break it, so its execute is refused and the first stays in force.
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 1_000);
    ok(&mut chain, ALICE, &change(&[("target_cycles", 40_000_000), ("max_attached_cycles", 10_000_000)]), DEPOSIT);
    ok(&mut chain, ALICE, &change(&[("max_attached_cycles", 5_000_000), ("target_cycles", 20_000_000)]), DEPOSIT);
    ok(&mut chain, ALICE, &change(&[("target_cycles", 10_000_000)]), DEPOSIT);
    for id in 0..3 {
        ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: id, support: true }, 0);
    }
    let executable = proposal(&chain, 2).executable_height;
    advance_to(&mut chain, executable);
    ok(&mut chain, BOB, &GovernanceCall::Execute { proposal: 0 }, 0);
    refused(&mut chain, BOB, &GovernanceCall::Execute { proposal: 2 }, 0, ExecCode::ProposalRelation);
    ok(&mut chain, BOB, &GovernanceCall::Execute { proposal: 1 }, 0);
    let live = params(&chain);
    assert_eq!((live.target_cycles, live.max_attached_cycles), (20_000_000, 5_000_000));
    assert_eq!(live.broken_relations().count(), 0);
}

#[test]
fn governed_parameters_reach_the_registry_and_the_fee_market() {
    use drover_types::runner::{Capabilities, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall};
    let mut chain = chain();
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 1_000);
    let raise = GovernanceCall::Propose {
        changes: vec![("min_runner_stake".into(), 5_000_000_000), ("min_basefee_cycle".into(), 3)],
        description: "dearer".into(),
    };
    ok(&mut chain, ALICE, &raise, DEPOSIT);
    ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    let executable = proposal(&chain, 0).executable_height;
    advance_to(&mut chain, executable);
    let execute =
        chain.tx(BOB, Some(GOVERNANCE_ADDRESS), GovernanceCall::Execute { proposal: 0 }.message().encode(), 0);
    let executed = chain.block(&[execute]);
    assert_eq!(executed.receipts[0].status, TxStatus::Success, "{:?}", executed.receipts[0].error);
    assert_eq!(executed.next_basefees.cycle, 3, "the next block already prices at the raised floor");
    let next = chain.block(&[]);
    assert_eq!(next.basefees.cycle, 3);
    assert_eq!(next.next_basefees.cycle, 3, "the basefee is held at its new floor");
    let register = RegistryCall::Register {
        rate_card: RateCard { price_per_job: 1 },
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 1 },
    };
    let tx = chain.tx(BOB, Some(RUNNER_REGISTRY_ADDRESS), register.message().encode(), 1_000_000_000);
    let receipt = chain.block(&[tx]).receipts.remove(0);
    assert_eq!(receipt.error.map(|e| e.code), Some(ExecCode::RunnerStake), "the new floor");
}

/// Limits of a call of the spinner that uses 15M cycles.
const SPIN_LIMITS: (u64, u64) = (15_000_000, 40_000);

#[test]
fn a_raised_cycle_target_lets_blocks_fill_further_before_the_basefee_moves() {
    let mut chain = chain();
    let spinner = chain.deploy(BOB, crate::testing::example("infinite_loop"), &[], 0);
    // A block using 15M cycles: above the 10M target, so the cycle basefee rises.
    let spin = |chain: &mut Chain| {
        let tx = chain.call_tx_with_limits(BOB, spinner, "spin", &[], SPIN_LIMITS);
        let outcome = chain.block(&[tx]);
        assert!(outcome.cycles_used > 14_000_000, "{}", outcome.cycles_used);
        outcome
    };
    let before = spin(&mut chain);
    assert!(before.next_basefees.cycle > before.basefees.cycle, "above the old target the basefee rises");
    // Let it settle back to the floor.
    for _ in 0..8 {
        chain.block(&[]);
    }
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 1_000);
    ok(&mut chain, ALICE, &propose(20_000_000), DEPOSIT);
    ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    let executable = proposal(&chain, 0).executable_height;
    advance_to(&mut chain, executable);
    // Block building: two 15M-cycle calls fit under the new 40M limit, not under the old 20M.
    let built = |chain: &mut Chain| {
        let txs = [
            chain.call_tx_with_limits(BOB, spinner, "spin", &[], SPIN_LIMITS),
            chain.call_tx_with_limits(BOB, spinner, "spin", &[], SPIN_LIMITS),
        ];
        let (selection, _) =
            crate::build_block(crate::testing::vm(), &chain.env(), &crate::FeeParams::default(), &chain.state, &txs)
                .unwrap();
        chain.nonces.insert(BOB, chain.nonces[&BOB] - 2);
        selection.included.len()
    };
    assert_eq!(built(&mut chain), 1, "the old limit holds one");
    ok(&mut chain, ALICE, &GovernanceCall::Execute { proposal: 0 }, 0);
    assert_eq!(built(&mut chain), 2, "the new limit holds both");
    let after = spin(&mut chain);
    assert_eq!(after.params.target_cycles, 20_000_000);
    assert_eq!(after.next_basefees.cycle, after.basefees.cycle, "below the new target it holds at its floor");
}

#[test]
fn two_proposals_executed_in_one_block_both_hold() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 1_000);
    ok(&mut chain, ALICE, &propose(20_000_000), DEPOSIT);
    let timelock =
        GovernanceCall::Propose { changes: vec![("timelock_blocks".into(), 5)], description: "quicker".into() };
    ok(&mut chain, ALICE, &timelock, DEPOSIT);
    ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 1, support: true }, 0);
    let executable = proposal(&chain, 1).executable_height;
    advance_to(&mut chain, executable);
    let both = [0, 1].map(|id| {
        chain.tx(BOB, Some(GOVERNANCE_ADDRESS), GovernanceCall::Execute { proposal: id }.message().encode(), 0)
    });
    let outcome = chain.block(&both);
    assert!(outcome.receipts.iter().all(|r| r.status == TxStatus::Success), "{:?}", outcome.receipts);
    let live = params(&chain);
    assert_eq!((live.target_cycles, live.timelock_blocks), (20_000_000, 5), "the first execute's change stays");
    assert_eq!(outcome.next_params, live);
}

#[test]
fn a_vote_pays_for_the_proposal_record_it_rewrites_and_clients_cover_the_largest() {
    use drover_state::governance::Closed;
    use drover_types::chain_params::PARAMS;
    use drover_types::governance::{MAX_CHANGES, MAX_DESCRIPTION_BYTES, VOTE_CELLS};
    let mut chain = chain();
    ok(&mut chain, ALICE, &GovernanceCall::Lock, 1_000);
    let long = GovernanceCall::Propose {
        changes: vec![("target_cycles".into(), 20_000_000)],
        description: "d".repeat(MAX_DESCRIPTION_BYTES),
    };
    ok(&mut chain, ALICE, &long, DEPOSIT);
    let vote = ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    ok(&mut chain, ALICE, &propose(20_000_000), DEPOSIT);
    let record_bytes = |chain: &Chain, id| chain.state[&state_key(&proposal_key(id))].len() as u64;
    let long_bytes = record_bytes(&chain, 0);
    let vote_short = ok(&mut chain, ALICE, &GovernanceCall::Vote { proposal: 1, support: true }, 0);
    assert_eq!(
        vote.cells_used - vote_short.cells_used,
        long_bytes - record_bytes(&chain, 1),
        "a vote's cells follow the size of the record it rewrites"
    );
    assert!(vote.cells_used >= VOTE_CELLS + long_bytes);

    // The limits clients set cover the largest records there can be.
    let longest = PARAMS.iter().max_by_key(|spec| spec.name.len()).unwrap().name;
    let largest = ProposalRecord {
        proposer: ALICE,
        changes: (0..MAX_CHANGES).map(|_| (longest.to_owned(), u128::MAX)).collect(),
        description: "d".repeat(MAX_DESCRIPTION_BYTES),
        deposit: u128::MAX,
        created_height: u64::MAX,
        voting_ends_height: u64::MAX,
        executable_height: u64::MAX,
        expires_height: u64::MAX,
        quorum_weight: u128::MAX,
        approval_percent: u64::MAX,
        votes_for: u128::MAX,
        votes_against: u128::MAX,
        votes: u64::MAX,
        closed: Some(Closed::Expired),
        closed_height: Some(u64::MAX),
    };
    assert!(largest.encode().len() as u64 <= drover_types::governance::max_proposal_record_bytes());
    let widest = ChainParams::default()
        .with_genesis_values(PARAMS.iter().map(|spec| {
            let max = [u128::MAX, u128::from(u64::MAX), u128::from(u8::MAX)]
                .into_iter()
                .find(|v| ChainParams::default().with_genesis_values([(spec.name, *v)]).is_ok())
                .unwrap();
            (spec.name, max)
        }))
        .unwrap();
    assert!(widest.encode().len() as u64 <= drover_types::chain_params::max_params_record_bytes());
}

#[test]
fn the_quorum_has_a_floor() {
    use drover_types::params::BASE_UNITS_PER_DRV;
    let mut chain = Chain::new(&[(ALICE, RICH), (BOB, RICH)]);
    let floor = ChainParams::default().min_quorum_weight;
    assert_eq!(floor, 1_000 * BASE_UNITS_PER_DRV);
    // Nothing locked: 10 % of nothing would be a quorum of 0, and one small vote would pass.
    ok(&mut chain, ALICE, &propose(20_000_000), DEPOSIT);
    assert_eq!(proposal(&chain, 0).quorum_weight, floor);
    ok(&mut chain, BOB, &GovernanceCall::Lock, 1);
    ok(&mut chain, BOB, &GovernanceCall::Vote { proposal: 0, support: true }, 0);
    let ends = proposal(&chain, 0).voting_ends_height;
    advance_to(&mut chain, ends);
    ok(&mut chain, BOB, &GovernanceCall::Execute { proposal: 0 }, 0);
    assert_eq!(proposal(&chain, 0).closed, Some(drover_state::governance::Closed::Rejected), "below the floor");
    assert_eq!(params(&chain).target_cycles, 10_000_000);
}

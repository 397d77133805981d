//! Governance: the native system actor at [`GOVERNANCE_ADDRESS`], which changes the chain
//! parameters by vote.
//!
//! Reached like the other system actors (a transaction's Message or an actor's `call`,
//! through `native::run`). Locked weight and proposal deposits sit in the actor's own account.
//!
//! # Rules
//!
//! - `lock`: a non-zero value (E1701) adds to the sender's voting weight.
//! - `unlock {amount}`: at most what is locked, and not before the end of the sender's latest
//!   vote (E1709).
//! - `propose {changes, description}`: a deposit (the value) of at least `proposal_deposit`
//!   (E1702); 1 to 16 changes, each a known parameter within its bounds (E1703), that together
//!   keep the relations between parameters (E1710, `drover_types::chain_params`); a description
//!   of at most 1 KiB (E1703). The proposal's schedule is fixed now from the live parameters:
//!   votes until `created + voting_period_blocks`, executable from `voting_ends +
//!   timelock_blocks` until `executable + execution_window_blocks`; quorum is
//!   `quorum_percent` of the weight locked now, and at least `min_quorum_weight`.
//! - `vote {proposal, support}`: an open proposal (E1704 unknown, E1705 closed for votes), a
//!   sender with locked weight (E1706) that has not voted on it (E1707); the weight counts
//!   whole, and stays locked until the vote ends.
//! - `execute {proposal}` (anyone): after the vote (E1708 while voting). A proposal that failed
//!   its quorum or approval is closed as rejected; one that passed is applied once its timelock
//!   is over (E1708 before) and before it expires (closed as expired after). Applying re-checks
//!   every change against the bounds and the relations (E1703, E1710: two proposals that each
//!   kept a relation may break it together, and the later one is then refused) and writes all
//!   of them at once, over the stored record (so two proposals executed in one block both
//!   hold); they are in force from the next block. Closing returns the deposit to the proposer.

#[cfg(test)]
mod tests;

use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::{
    decode_count, encode_count,
    governance::{
        Closed, LockRecord, ProposalRecord, VoteRecord, decode_amount, decode_params, encode_amount, lock_key,
        params_key, proposal_count_key, proposal_key, total_locked_key, vote_key, voted_key,
    },
};
use drover_types::{
    Address, Event,
    cbor::Writer,
    chain_params::{ChainParams, ParamError},
    exec_error::ExecCode,
    governance::{GOVERNANCE_ADDRESS, GovernanceCall, MAX_CHANGES, MAX_DESCRIPTION_BYTES, passes},
};
use drover_vm::{CallContext, HostError};

/// Topic of the event a proposal emits: `[id, proposer]`.
pub const EVENT_PROPOSED: &str = "governance.proposed";
/// Topic of the event a vote emits: `[id, voter, support, weight]`.
pub const EVENT_VOTED: &str = "governance.voted";
/// Topic of the event a closing emits: `[id, "executed" | "rejected" | "expired"]`.
pub const EVENT_CLOSED: &str = "governance.closed";

impl SystemActor for GovernanceCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let user_keys = match self {
            GovernanceCall::Lock | GovernanceCall::Unlock { .. } => vec![lock_key(sender), total_locked_key()],
            GovernanceCall::Propose { .. } => vec![proposal_count_key(), total_locked_key()],
            GovernanceCall::Vote { proposal, .. } => {
                vec![proposal_key(*proposal), lock_key(sender), voted_key(*proposal, sender)]
            }
            GovernanceCall::Execute { proposal } => vec![proposal_key(*proposal), params_key()],
        };
        user_keys.iter().map(|key| drover_state::governance::state_key(key)).collect()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        let mut governance = Governance { host, meter, sender: context.caller, height: context.block_height };
        governance.apply(self, context.value).map(|()| Vec::new())
    }
}

fn refuse(code: ExecCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

/// A proposal's changes refused: E1710 for a broken relation between parameters, E1703 for the
/// rest.
fn refuse_changes(error: ParamError) -> HostError {
    let code = match error {
        ParamError::Relation { .. } => ExecCode::ProposalRelation,
        ParamError::Unknown(_) | ParamError::OutOfBounds { .. } | ParamError::Repeated(_) => ExecCode::ProposalChanges,
    };
    refuse(code, error.to_string())
}

struct Governance<'x, H> {
    host: &'x mut H,
    /// Charged for the records a vote or an execute rewrites, by their size.
    meter: &'x mut Meter,
    sender: Address,
    height: u64,
}

impl<H: NativeHost> Governance<'_, H> {
    fn apply(&mut self, call: GovernanceCall, value: u128) -> Result<(), HostError> {
        let sender = self.sender;
        match call {
            GovernanceCall::Lock => {
                if value == 0 {
                    return Err(refuse(ExecCode::GovernanceAmount, "a lock carries a non-zero value"));
                }
                let mut lock = self.lock(&sender)?;
                lock.amount = lock.amount.checked_add(value).ok_or_else(|| HostError::internal("lock overflows"))?;
                self.write(lock_key(&sender), Some(lock.encode()));
                self.add_total(value, true)?;
            }
            GovernanceCall::Unlock { amount } => {
                let mut lock = self.lock(&sender)?;
                if amount == 0 || amount > lock.amount {
                    return Err(refuse(
                        ExecCode::GovernanceAmount,
                        format!("{sender} has {} locked; cannot unlock {amount}", lock.amount),
                    ));
                }
                if self.height < lock.locked_until {
                    return Err(refuse(
                        ExecCode::WeightInVote,
                        format!("{sender}'s weight is in a vote until height {}", lock.locked_until),
                    ));
                }
                lock.amount -= amount;
                self.write(lock_key(&sender), (lock.amount > 0).then(|| lock.encode()));
                self.add_total(amount, false)?;
                self.host.move_value(&GOVERNANCE_ADDRESS, &sender, amount)?;
            }
            GovernanceCall::Propose { changes, description } => {
                let params = self.params()?;
                if value < params.proposal_deposit {
                    return Err(refuse(
                        ExecCode::ProposalDeposit,
                        format!("a proposal deposits at least {} base units; {value} sent", params.proposal_deposit),
                    ));
                }
                if changes.is_empty() || changes.len() > MAX_CHANGES {
                    return Err(refuse(
                        ExecCode::ProposalChanges,
                        format!("a proposal makes 1 to {MAX_CHANGES} changes"),
                    ));
                }
                if description.len() > MAX_DESCRIPTION_BYTES {
                    return Err(refuse(
                        ExecCode::ProposalChanges,
                        format!("the description is {} bytes; at most {MAX_DESCRIPTION_BYTES}", description.len()),
                    ));
                }
                params.with_changes(&changes).map_err(refuse_changes)?;
                let total = self.read(&total_locked_key(), decode_amount)?.unwrap_or(0);
                let quorum_weight =
                    total.saturating_mul(u128::from(params.quorum_percent)).div_ceil(100).max(params.min_quorum_weight);
                let id = self.read(&proposal_count_key(), decode_count)?.unwrap_or(0);
                self.write(proposal_count_key(), Some(encode_count(id.saturating_add(1))));
                let voting_ends_height = self.height.saturating_add(params.voting_period_blocks);
                let executable_height = voting_ends_height.saturating_add(params.timelock_blocks);
                let record = ProposalRecord {
                    proposer: sender,
                    changes,
                    description,
                    deposit: value,
                    created_height: self.height,
                    voting_ends_height,
                    executable_height,
                    expires_height: executable_height.saturating_add(params.execution_window_blocks),
                    quorum_weight,
                    approval_percent: params.approval_percent,
                    votes_for: 0,
                    votes_against: 0,
                    votes: 0,
                    closed: None,
                    closed_height: None,
                };
                self.write(proposal_key(id), Some(record.encode()));
                self.emit(EVENT_PROPOSED, |w| {
                    w.array(2).uint(id).bytes(&sender.0);
                });
            }
            GovernanceCall::Vote { proposal, support } => {
                let mut record = self.proposal(proposal)?;
                if self.height >= record.voting_ends_height {
                    return Err(refuse(
                        ExecCode::ProposalNotVoting,
                        format!("proposal {proposal}'s vote ended at height {}", record.voting_ends_height),
                    ));
                }
                let mut lock = self.lock(&sender)?;
                if lock.amount == 0 {
                    return Err(refuse(ExecCode::NoVotingWeight, format!("{sender} has no locked weight; lock first")));
                }
                if self.read(&voted_key(proposal, &sender), |_| Ok(()))?.is_some() {
                    return Err(refuse(
                        ExecCode::AlreadyVoted,
                        format!("{sender} already voted on proposal {proposal}"),
                    ));
                }
                let weight = lock.amount;
                if support {
                    record.votes_for = record.votes_for.saturating_add(weight);
                } else {
                    record.votes_against = record.votes_against.saturating_add(weight);
                }
                let vote = VoteRecord { voter: sender, support, weight, height: self.height };
                self.write(vote_key(proposal, record.votes), Some(vote.encode()));
                self.write(voted_key(proposal, &sender), Some(drover_state::MARKER.to_vec()));
                record.votes = record.votes.saturating_add(1);
                lock.locked_until = lock.locked_until.max(record.voting_ends_height);
                self.write(lock_key(&sender), Some(lock.encode()));
                self.rewrite(proposal_key(proposal), record.encode())?;
                self.emit(EVENT_VOTED, |w| {
                    w.array(4).uint(proposal).bytes(&sender.0).bool(support).u128(weight);
                });
            }
            GovernanceCall::Execute { proposal } => {
                let mut record = self.proposal(proposal)?;
                if let Some(closed) = record.closed {
                    return Err(refuse(
                        ExecCode::ProposalNotExecutable,
                        format!("proposal {proposal} is closed ({closed:?})"),
                    ));
                }
                if self.height < record.voting_ends_height {
                    return Err(refuse(
                        ExecCode::ProposalNotExecutable,
                        format!("proposal {proposal} is open for votes until height {}", record.voting_ends_height),
                    ));
                }
                let passed =
                    passes(record.votes_for, record.votes_against, record.quorum_weight, record.approval_percent);
                let closed = if !passed {
                    Closed::Rejected
                } else if self.height < record.executable_height {
                    return Err(refuse(
                        ExecCode::ProposalNotExecutable,
                        format!("proposal {proposal} passed; its timelock ends at height {}", record.executable_height),
                    ));
                } else if self.height >= record.expires_height {
                    Closed::Expired
                } else {
                    // The stored record, not the block's copy: another proposal executed earlier
                    // in this block has already changed it, and its changes must stay.
                    let params = self.read(&params_key(), decode_params)?.unwrap_or_else(|| self.host.params());
                    let next = params.with_changes(&record.changes).map_err(refuse_changes)?;
                    self.rewrite(params_key(), next.encode())?;
                    Closed::Executed
                };
                record.closed = Some(closed);
                record.closed_height = Some(self.height);
                self.rewrite(proposal_key(proposal), record.encode())?;
                self.host.move_value(&GOVERNANCE_ADDRESS, &record.proposer, record.deposit)?;
                let word = match closed {
                    Closed::Executed => "executed",
                    Closed::Rejected => "rejected",
                    Closed::Expired => "expired",
                };
                self.emit(EVENT_CLOSED, |w| {
                    w.array(2).uint(proposal).text(word);
                });
            }
        }
        Ok(())
    }

    fn params(&mut self) -> Result<ChainParams, HostError> {
        Ok(self.host.params())
    }

    fn lock(&mut self, account: &Address) -> Result<LockRecord, HostError> {
        Ok(self.read(&lock_key(account), LockRecord::decode)?.unwrap_or_default())
    }

    fn proposal(&mut self, id: u64) -> Result<ProposalRecord, HostError> {
        self.read(&proposal_key(id), ProposalRecord::decode)?
            .ok_or_else(|| refuse(ExecCode::UnknownProposal, format!("no proposal has id {id}")))
    }

    fn add_total(&mut self, amount: u128, increase: bool) -> Result<(), HostError> {
        let total = self.read(&total_locked_key(), decode_amount)?.unwrap_or(0);
        let total = if increase { total.checked_add(amount) } else { total.checked_sub(amount) }
            .ok_or_else(|| HostError::internal("governance: total locked out of range"))?;
        self.write(total_locked_key(), (total > 0).then(|| encode_amount(total)));
        Ok(())
    }

    fn read<T>(
        &mut self,
        user_key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
    ) -> Result<Option<T>, HostError> {
        self.host.read_storage(&GOVERNANCE_ADDRESS, user_key, decode)
    }

    fn write(&mut self, user_key: Vec<u8>, value: Option<Vec<u8>>) {
        self.host.write_storage(&GOVERNANCE_ADDRESS, &user_key, value);
    }

    /// Writes a record whose size the call's fixed price does not cover, charging its bytes.
    fn rewrite(&mut self, user_key: Vec<u8>, value: Vec<u8>) -> Result<(), HostError> {
        self.meter.charge(0, value.len() as u64, "rewriting a governance record")?;
        self.write(user_key, Some(value));
        Ok(())
    }

    fn emit(&mut self, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
        let mut w = Writer::with_capacity(64);
        data(&mut w);
        self.host.emit_event(Event { address: GOVERNANCE_ADDRESS, topic: topic.to_owned(), data: w.into_inner() });
    }
}

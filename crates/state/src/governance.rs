//! Governance records: the storage of the governance system actor (`0x00…09`), proven with
//! `/proof/storage/0x…09/{key}` like any actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"p"` | the live [`ChainParams`] (canonical map `{name: uint}`), read at the start of every block |
//! | `"w" ‖ account(20)` | [`LockRecord`]: the account's voting weight |
//! | `"t"` | total weight locked (a u128) |
//! | `"n"` | number of proposals (count record; ids are `0..n`) |
//! | `"r" ‖ id(8, BE)` | [`ProposalRecord`] |
//! | `"v" ‖ id(8, BE) ‖ seq(8, BE)` | [`VoteRecord`]: the proposal's `seq`-th vote |
//! | `"y" ‖ id(8, BE) ‖ voter(20)` | marker: the account voted on the proposal |
//!
//! Invariants: the governance actor's account holds exactly the total locked plus the deposits
//! of the open proposals; `"t"` is the sum of the locks; a proposal's `votes_for` and
//! `votes_against` are the sums of its votes' weights; an account's lock cannot be unlocked
//! before the end of every vote it cast (`locked_until`).

use crate::RecordError;
use crate::keys::storage_key;
use drover_types::{
    Address,
    cbor::{Writer, decode_fixed, decode_strict, decode_u128, expect_array, take_null},
    chain_params::ChainParams,
    governance::{GOVERNANCE_ADDRESS, ProposalStatus, passes},
};

/// The state key of the governance actor's storage entry `user_key`.
pub fn state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&GOVERNANCE_ADDRESS, user_key)
}

/// User key of the live chain parameters.
pub fn params_key() -> Vec<u8> {
    b"p".to_vec()
}

/// The state key of the live chain parameters.
pub fn params_state_key() -> Vec<u8> {
    state_key(&params_key())
}

/// Strict decode of the stored parameters.
pub fn decode_params(bytes: &[u8]) -> Result<ChainParams, RecordError> {
    ChainParams::decode(bytes).map_err(|e| RecordError(drover_types::cbor::CborError::malformed(e.to_string())))
}

/// User key of an account's lock.
pub fn lock_key(account: &Address) -> Vec<u8> {
    [&b"w"[..], &account.0].concat()
}

/// User key of the total weight locked.
pub fn total_locked_key() -> Vec<u8> {
    b"t".to_vec()
}

/// User key of the number of proposals.
pub fn proposal_count_key() -> Vec<u8> {
    b"n".to_vec()
}

/// User key of proposal `id`.
pub fn proposal_key(id: u64) -> Vec<u8> {
    [&b"r"[..], &id.to_be_bytes()].concat()
}

/// User key of proposal `id`'s `seq`-th vote.
pub fn vote_key(id: u64, seq: u64) -> Vec<u8> {
    [&b"v"[..], &id.to_be_bytes(), &seq.to_be_bytes()].concat()
}

/// User key of the marker of `voter`'s vote on proposal `id`.
pub fn voted_key(id: u64, voter: &Address) -> Vec<u8> {
    [&b"y"[..], &id.to_be_bytes(), &voter.0].concat()
}

/// Canonical CBOR of an amount record.
pub fn encode_amount(amount: u128) -> Vec<u8> {
    let mut w = Writer::with_capacity(20);
    w.u128(amount);
    w.into_inner()
}

/// Strict decode of [`encode_amount`].
pub fn decode_amount(bytes: &[u8]) -> Result<u128, RecordError> {
    Ok(decode_strict(bytes, decode_u128)?)
}

/// An account's voting weight: `[amount, locked_until]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockRecord {
    /// Base units locked.
    pub amount: u128,
    /// First height at which it may be unlocked (the end of its latest vote).
    pub locked_until: u64,
}

impl LockRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(32);
        w.array(2).u128(self.amount).uint(self.locked_until);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            Ok(LockRecord { amount: decode_u128(d)?, locked_until: d.u64()? })
        })?)
    }
}

/// How a proposal was closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// Its changes were applied.
    Executed,
    /// Its vote failed.
    Rejected,
    /// It passed but its window ended unexecuted.
    Expired,
}

/// A proposal: `[proposer, [[name, value]], description, deposit, created_height,
/// voting_ends_height, executable_height, expires_height, quorum_weight, approval_percent,
/// votes_for, votes_against, votes, closed | null, closed_height | null]` — `closed` as 0
/// executed, 1 rejected, 2 expired. The schedule, quorum and approval are fixed when it is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProposalRecord {
    /// Who made it (and gets the deposit back).
    pub proposer: Address,
    /// The parameters and their new values.
    pub changes: Vec<(String, u128)>,
    /// What it is for.
    pub description: String,
    /// Base units held until it is closed.
    pub deposit: u128,
    /// Height it was made at.
    pub created_height: u64,
    /// First height at which votes are no longer taken.
    pub voting_ends_height: u64,
    /// First height at which, having passed, it may be executed.
    pub executable_height: u64,
    /// First height at which, passed and unexecuted, it has expired.
    pub expires_height: u64,
    /// Weight of the votes needed in all.
    pub quorum_weight: u128,
    /// Percent of the votes cast needed for it.
    pub approval_percent: u64,
    /// Weight voted for.
    pub votes_for: u128,
    /// Weight voted against.
    pub votes_against: u128,
    /// Number of votes.
    pub votes: u64,
    /// How it was closed, once it is.
    pub closed: Option<Closed>,
    /// Height it was closed at.
    pub closed_height: Option<u64>,
}

const CLOSED: [Closed; 3] = [Closed::Executed, Closed::Rejected, Closed::Expired];

impl ProposalRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(256 + self.description.len() + 48 * self.changes.len());
        w.array(15).bytes(&self.proposer.0);
        w.array(self.changes.len() as u64);
        for (name, value) in &self.changes {
            w.array(2).text(name).u128(*value);
        }
        w.text(&self.description).u128(self.deposit).uint(self.created_height);
        w.uint(self.voting_ends_height).uint(self.executable_height).uint(self.expires_height);
        w.u128(self.quorum_weight).uint(self.approval_percent).u128(self.votes_for).u128(self.votes_against);
        w.uint(self.votes);
        match self.closed {
            Some(closed) => w.uint(CLOSED.iter().position(|c| *c == closed).unwrap_or(0) as u64),
            None => w.null(),
        };
        match self.closed_height {
            Some(height) => w.uint(height),
            None => w.null(),
        };
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 15)?;
            let proposer = Address(decode_fixed(d)?);
            let at = d.position();
            let count = d.array()?.ok_or_else(|| {
                drover_types::cbor::CborError::NonCanonical(format!("indefinite-length array at byte {at}"))
            })?;
            let mut changes = Vec::with_capacity(usize::try_from(count).unwrap_or(usize::MAX).min(16));
            for _ in 0..count {
                expect_array(d, 2)?;
                changes.push((d.str()?.to_owned(), decode_u128(d)?));
            }
            let description = d.str()?.to_owned();
            let deposit = decode_u128(d)?;
            let created_height = d.u64()?;
            let voting_ends_height = d.u64()?;
            let executable_height = d.u64()?;
            let expires_height = d.u64()?;
            let quorum_weight = decode_u128(d)?;
            let approval_percent = d.u64()?;
            let votes_for = decode_u128(d)?;
            let votes_against = decode_u128(d)?;
            let votes = d.u64()?;
            let closed = if take_null(d)? {
                None
            } else {
                let n = d.u64()?;
                Some(
                    *CLOSED
                        .get(n as usize)
                        .ok_or_else(|| drover_types::cbor::CborError::malformed(format!("closed {n}")))?,
                )
            };
            let closed_height = if take_null(d)? { None } else { Some(d.u64()?) };
            Ok(ProposalRecord {
                proposer,
                changes,
                description,
                deposit,
                created_height,
                voting_ends_height,
                executable_height,
                expires_height,
                quorum_weight,
                approval_percent,
                votes_for,
                votes_against,
                votes,
                closed,
                closed_height,
            })
        })?)
    }
}

impl ProposalRecord {
    /// Where the proposal is at `height`: its closing if closed; else voting until the vote
    /// ends, then passed (until it expires) or rejected by its tally.
    pub fn status(&self, height: u64) -> ProposalStatus {
        match self.closed {
            Some(Closed::Executed) => ProposalStatus::Executed,
            Some(Closed::Rejected) => ProposalStatus::Rejected,
            Some(Closed::Expired) => ProposalStatus::Expired,
            None if height < self.voting_ends_height => ProposalStatus::Voting,
            None if !passes(self.votes_for, self.votes_against, self.quorum_weight, self.approval_percent) => {
                ProposalStatus::Rejected
            }
            None if height >= self.expires_height => ProposalStatus::Expired,
            None => ProposalStatus::Passed,
        }
    }
}

/// One vote: `[voter, support, weight, height]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VoteRecord {
    /// Who voted.
    pub voter: Address,
    /// For or against.
    pub support: bool,
    /// Its locked weight when it voted.
    pub weight: u128,
    /// Height of the vote.
    pub height: u64,
}

impl VoteRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(64);
        w.array(4).bytes(&self.voter.0).bool(self.support).u128(self.weight).uint(self.height);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            Ok(VoteRecord {
                voter: Address(decode_fixed(d)?),
                support: d.bool()?,
                weight: decode_u128(d)?,
                height: d.u64()?,
            })
        })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let proposal = ProposalRecord {
            proposer: Address([1; 20]),
            changes: vec![("target_cycles".into(), 20_000_000)],
            description: "bigger".into(),
            deposit: 10,
            created_height: 1,
            voting_ends_height: 101,
            executable_height: 121,
            expires_height: 1_121,
            quorum_weight: 5,
            approval_percent: 51,
            votes_for: 7,
            votes_against: 1,
            votes: 2,
            closed: Some(Closed::Rejected),
            closed_height: Some(130),
        };
        assert_eq!(ProposalRecord::decode(&proposal.encode()), Ok(proposal.clone()));
        let open = ProposalRecord { closed: None, closed_height: None, ..proposal };
        assert_eq!(ProposalRecord::decode(&open.encode()), Ok(open));
        let vote = VoteRecord { voter: Address([2; 20]), support: true, weight: 9, height: 4 };
        assert_eq!(VoteRecord::decode(&vote.encode()), Ok(vote));
        let lock = LockRecord { amount: 3, locked_until: 9 };
        assert_eq!(LockRecord::decode(&lock.encode()), Ok(lock));
        assert_eq!(decode_params(&ChainParams::default().encode()), Ok(ChainParams::default()));
    }
}

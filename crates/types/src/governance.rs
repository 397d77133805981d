//! Governance: the calls of the governance system actor ([`GOVERNANCE_ADDRESS`]) that change
//! the chain parameters (`crate::chain_params`) by vote, and how a proposal is decided.
//!
//! Weight is native currency locked with `lock`; a `propose` names parameter changes (checked
//! against the parameters' bounds and relations when it is made, and again at `execute`), each
//! `vote` puts all the sender's locked weight for or against, and `execute` closes a proposal
//! whose vote ended, applying its changes when it [passed](passes) and its timelock is over.

use crate::Address;
use crate::args::{Args, ArgsBuilder};
use crate::chain_params::{ENTRY_OVERHEAD_BYTES, PARAMS, max_params_record_bytes};
use crate::system_call::{SystemCall, SystemCallError};

/// The governance system actor.
pub const GOVERNANCE_ADDRESS: Address = Address::system(0x09);

/// Longest proposal description, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 1_024;
/// Most parameter changes in one proposal.
pub const MAX_CHANGES: usize = 16;

/// Cycles of a `lock` or `unlock`.
pub const LOCK_CYCLES: u64 = 5_000;
/// Cycles of a `propose`.
pub const PROPOSE_CYCLES: u64 = 20_000;
/// Cycles of a `vote`.
pub const VOTE_CYCLES: u64 = 8_000;
/// Cycles of an `execute` (the tally, the parameters record).
pub const EXECUTE_CYCLES: u64 = 20_000;
/// Cells of a proposal record besides its description and changes.
pub const PROPOSAL_CELLS: u64 = 256;
/// Cells of a vote (its record, the voter's marker and lock) besides rewriting the proposal
/// record, which is charged by its size as it runs.
pub const VOTE_CELLS: u64 = 128;
/// Cells of an `execute` besides the records it rewrites (the proposal's, and the parameters'
/// when applied), which are charged by their size as it runs.
pub const EXECUTE_CELLS: u64 = 64;

/// One call of the governance actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GovernanceCall {
    /// `lock {}`: the value becomes the sender's voting weight.
    Lock,
    /// `unlock {"amount"}`: gives back locked weight once no vote of the sender is open.
    Unlock {
        /// Base units.
        amount: u128,
    },
    /// `propose {"changes": {name: uint}, "description": text}` with the deposit as value.
    Propose {
        /// The parameters and their new values, in name order.
        changes: Vec<(String, u128)>,
        /// What it is for.
        description: String,
    },
    /// `vote {"proposal": uint, "support": bool}` with all the sender's locked weight.
    Vote {
        /// The proposal's id.
        proposal: u64,
        /// For (true) or against.
        support: bool,
    },
    /// `execute {"proposal": uint}`: anyone closes a proposal whose vote ended (applying it when
    /// it passed and its timelock is over).
    Execute {
        /// The proposal's id.
        proposal: u64,
    },
}

impl GovernanceCall {
    /// What a transaction's limits must cover for this call: its fixed [`cost`](Self::cost)
    /// plus, for a vote or an execute, the largest records it may rewrite.
    pub fn max_cost(&self) -> (u64, u64) {
        let (cycles, cells) = self.cost();
        let rewrites = match self {
            GovernanceCall::Vote { .. } => max_proposal_record_bytes(),
            GovernanceCall::Execute { .. } => max_proposal_record_bytes().saturating_add(max_params_record_bytes()),
            _ => 0,
        };
        (cycles, cells.saturating_add(rewrites))
    }
}

impl SystemCall for GovernanceCall {
    const ADDRESS: Address = GOVERNANCE_ADDRESS;
    const NAME: &'static str = "governance";

    /// Every handler of the governance actor.
    const HANDLERS: &'static [&'static str] = &["lock", "unlock", "propose", "vote", "execute"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            GovernanceCall::Lock => "lock",
            GovernanceCall::Unlock { .. } => "unlock",
            GovernanceCall::Propose { .. } => "propose",
            GovernanceCall::Vote { .. } => "vote",
            GovernanceCall::Execute { .. } => "execute",
        }
    }

    /// Whether the call may carry value (a lock, a deposit).
    fn takes_value(&self) -> bool {
        matches!(self, GovernanceCall::Lock | GovernanceCall::Propose { .. })
    }

    /// What the call costs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64) {
        match self {
            GovernanceCall::Lock | GovernanceCall::Unlock { .. } => (LOCK_CYCLES, 64),
            GovernanceCall::Propose { changes, description } => {
                let names: usize = changes.iter().map(|(name, _)| name.len() + 17).sum();
                (PROPOSE_CYCLES, PROPOSAL_CELLS + (description.len() + names) as u64)
            }
            GovernanceCall::Vote { .. } => (VOTE_CYCLES, VOTE_CELLS),
            GovernanceCall::Execute { .. } => (EXECUTE_CYCLES, EXECUTE_CELLS),
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        let args = ArgsBuilder::new();
        match self {
            GovernanceCall::Lock => args,
            GovernanceCall::Unlock { amount } => args.u128("amount", *amount),
            GovernanceCall::Propose { changes, description } => {
                let map = changes.iter().fold(ArgsBuilder::new(), |map, (name, value)| map.u128(name, *value));
                args.map("changes", map).text("description", description)
            }
            GovernanceCall::Vote { proposal, support } => args.uint("proposal", *proposal).bool("support", *support),
            GovernanceCall::Execute { proposal } => args.uint("proposal", *proposal),
        }
        .encode()
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        let call = match handler {
            "lock" => {
                args.only(&[])?;
                GovernanceCall::Lock
            }
            "unlock" => {
                args.only(&["amount"])?;
                GovernanceCall::Unlock { amount: args.u128("amount")? }
            }
            "propose" => {
                args.only(&["changes", "description"])?;
                let map = args.map("changes")?;
                let mut changes = Vec::new();
                for name in map.keys() {
                    changes.push((name.to_owned(), map.u128(name)?));
                }
                GovernanceCall::Propose { changes, description: args.text("description")?.to_owned() }
            }
            "vote" => {
                args.only(&["support", "proposal"])?;
                GovernanceCall::Vote { proposal: args.uint("proposal")?, support: args.bool("support")? }
            }
            "execute" => {
                args.only(&["proposal"])?;
                GovernanceCall::Execute { proposal: args.uint("proposal")? }
            }
            other => return Err(SystemCallError::unknown_handler::<Self>(other)),
        };
        Ok(call)
    }
}

/// The most bytes a proposal record can take: its fixed fields, the longest description and
/// the most changes with the longest names and values.
pub fn max_proposal_record_bytes() -> u64 {
    let longest_name = PARAMS.iter().map(|spec| spec.name.len()).max().unwrap_or(0);
    PROPOSAL_CELLS + (MAX_DESCRIPTION_BYTES + MAX_CHANGES * (longest_name + ENTRY_OVERHEAD_BYTES)) as u64
}

/// Where a proposal is, as the API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProposalStatus {
    /// Open for votes.
    Voting,
    /// The vote passed; executable after the timelock, until it expires.
    Passed,
    /// The vote failed (quorum or approval).
    Rejected,
    /// Its changes are in force.
    Executed,
    /// It passed but was not executed in its window.
    Expired,
}

impl ProposalStatus {
    /// The API's word.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Voting => "voting",
            ProposalStatus::Passed => "passed",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Executed => "executed",
            ProposalStatus::Expired => "expired",
        }
    }

    /// Parses the API's word.
    pub fn parse(word: &str) -> Option<Self> {
        [Self::Voting, Self::Passed, Self::Rejected, Self::Executed, Self::Expired]
            .into_iter()
            .find(|status| status.as_str() == word)
    }
}

/// Whether votes `for_weight` and `against_weight` pass, with `quorum_weight` needed in all and
/// `approval_percent` of the votes for.
pub fn passes(for_weight: u128, against_weight: u128, quorum_weight: u128, approval_percent: u64) -> bool {
    let cast = for_weight.saturating_add(against_weight);
    cast > 0
        && cast >= quorum_weight
        && for_weight.saturating_mul(100) >= cast.saturating_mul(u128::from(approval_percent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_round_trips_through_its_message() {
        for call in [
            GovernanceCall::Lock,
            GovernanceCall::Unlock { amount: 5 },
            GovernanceCall::Propose {
                changes: vec![("target_cycles".into(), 20_000_000), ("timelock_blocks".into(), 5)],
                description: "bigger blocks".into(),
            },
            GovernanceCall::Vote { proposal: 3, support: true },
            GovernanceCall::Execute { proposal: 3 },
        ] {
            let message = call.message();
            assert_eq!(GovernanceCall::decode(&message.handler, &message.payload), Ok(call));
        }
        assert!(matches!(GovernanceCall::decode("mint", &[0xa0]), Err(SystemCallError::Handler { .. })));
    }

    #[test]
    fn passing_needs_quorum_and_approval() {
        assert!(passes(51, 49, 100, 51));
        assert!(!passes(50, 50, 100, 51), "a tie never passes");
        assert!(!passes(60, 0, 100, 51), "below quorum");
        assert!(!passes(0, 0, 0, 51), "nobody voted");
    }
}

//! Governance: `GET /governance/params`, `/governance/proposals` and
//! `/governance/proposal/{id}`.
//!
//! Amounts (locked weight, votes, deposits) are native base units, JSON integers; parameter
//! values are decimal strings, one form for every parameter since some are basefee values
//! (`super::encoding`).

use super::encoding::decimal_u128;
use crate::Address;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One chain parameter: its live value, default and bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ParamInfo {
    /// Its name, as proposals spell it.
    #[cfg_attr(feature = "openapi", schema(example = "target_cycles"))]
    pub name: String,
    /// The value in force for the next block.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "10000000"))]
    pub value: u128,
    /// Its value in a new genesis.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub default: u128,
    /// Least value a proposal may set.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub min: u128,
    /// Greatest value a proposal may set.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub max: u128,
    /// What it governs, with its unit.
    pub description: String,
}

impl ParamInfo {
    /// Every parameter with its value in `live`, in canonical order.
    pub fn all(live: &crate::chain_params::ChainParams) -> Vec<ParamInfo> {
        crate::chain_params::PARAMS
            .iter()
            .map(|spec| ParamInfo {
                name: spec.name.to_owned(),
                value: live.get(spec.name).unwrap_or(0),
                default: spec.default,
                min: spec.min,
                max: spec.max,
                description: spec.description.to_owned(),
            })
            .collect()
    }
}

/// `GET /governance/params`: every parameter, in canonical order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GovernanceParams {
    /// Latest finalized height; the values are in force for the next block.
    pub height: u64,
    /// The parameters.
    pub params: Vec<ParamInfo>,
    /// Weight locked for voting, base units.
    pub total_locked: u128,
}

impl GovernanceParams {
    /// The live value of the parameter `name`, if the node lists it.
    pub fn value(&self, name: &str) -> Option<u128> {
        self.params.iter().find(|p| p.name == name).map(|p| p.value)
    }
}

/// A proposal, in `GET /governance/proposals` and `/governance/proposal/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProposalInfo {
    /// Its id (proposals are numbered from 0).
    pub id: u64,
    /// Who made it.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub proposer: Address,
    /// The parameters and their new values (decimal strings).
    #[cfg_attr(feature = "openapi", schema(value_type = Object, example = json!({"target_cycles": "20000000"})))]
    pub changes: BTreeMap<String, String>,
    /// What it is for.
    pub description: String,
    /// `voting`, `passed`, `rejected`, `executed` or `expired`.
    #[cfg_attr(feature = "openapi", schema(example = "voting"))]
    pub status: String,
    /// Weight voted for.
    pub votes_for: u128,
    /// Weight voted against.
    pub votes_against: u128,
    /// Number of votes.
    pub votes_count: u64,
    /// Weight of the votes needed in all.
    pub quorum_weight: u128,
    /// Percent of the votes cast needed for it.
    pub approval_percent: u64,
    /// Its deposit, base units.
    pub deposit: u128,
    /// Height it was made at.
    pub created_height: u64,
    /// First height at which votes are no longer taken.
    pub voting_ends_height: u64,
    /// First height at which, having passed, it may be executed.
    pub executable_height: u64,
    /// First height at which, passed and unexecuted, it has expired.
    pub expires_height: u64,
    /// Height it was executed, rejected or expired at by an `execute`.
    pub closed_height: Option<u64>,
}

/// `GET /governance/proposals`: proposals in id order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProposalList {
    /// The page's proposals.
    pub proposals: Vec<ProposalInfo>,
    /// Number of proposals (with the status asked for, if any).
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// One vote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VoteInfo {
    /// Who voted.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub voter: Address,
    /// For (true) or against.
    pub support: bool,
    /// Its weight, base units.
    pub weight: u128,
    /// Height of the vote.
    pub height: u64,
}

/// One step of a proposal's life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TimelineEntry {
    /// `created`, `voting_ends`, `executable`, `expires`, or how it was closed.
    pub event: String,
    /// Its height.
    pub height: u64,
}

/// `GET /governance/proposal/{id}`: a proposal with its votes (a page) and timeline.
// Written flat (the proposal's fields beside `votes` and `timeline`); read through
// `ProposalDetailFields`, since serde reads a flattened record through a buffer that takes no
// `u128`, and so no native amount.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "ProposalDetailFields")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProposalDetail {
    /// The proposal.
    #[serde(flatten)]
    pub proposal: ProposalInfo,
    /// Its votes in the order cast, from `offset`, at most `limit`.
    pub votes: Vec<VoteInfo>,
    /// Its schedule and closing, in height order.
    pub timeline: Vec<TimelineEntry>,
}

/// [`ProposalDetail`] as its JSON lists it: every field of [`ProposalInfo`] (the conversion
/// names each, so a field added there does not build until it is added here), then its own.
#[derive(Deserialize)]
struct ProposalDetailFields {
    id: u64,
    proposer: Address,
    changes: BTreeMap<String, String>,
    description: String,
    status: String,
    votes_for: u128,
    votes_against: u128,
    votes_count: u64,
    quorum_weight: u128,
    approval_percent: u64,
    deposit: u128,
    created_height: u64,
    voting_ends_height: u64,
    executable_height: u64,
    expires_height: u64,
    closed_height: Option<u64>,
    votes: Vec<VoteInfo>,
    timeline: Vec<TimelineEntry>,
}

impl From<ProposalDetailFields> for ProposalDetail {
    fn from(f: ProposalDetailFields) -> Self {
        let proposal = ProposalInfo {
            id: f.id,
            proposer: f.proposer,
            changes: f.changes,
            description: f.description,
            status: f.status,
            votes_for: f.votes_for,
            votes_against: f.votes_against,
            votes_count: f.votes_count,
            quorum_weight: f.quorum_weight,
            approval_percent: f.approval_percent,
            deposit: f.deposit,
            created_height: f.created_height,
            voting_ends_height: f.voting_ends_height,
            executable_height: f.executable_height,
            expires_height: f.expires_height,
            closed_height: f.closed_height,
        };
        ProposalDetail { proposal, votes: f.votes, timeline: f.timeline }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposal_detail_round_trips_with_amounts_above_2_pow_64() {
        let big = u128::MAX;
        let proposal = ProposalInfo {
            id: 1,
            proposer: Address([1; 20]),
            changes: BTreeMap::from([("target_cycles".to_owned(), "20000000".to_owned())]),
            description: "fuller blocks".into(),
            status: "voting".into(),
            votes_for: big,
            votes_against: big - 1,
            votes_count: 2,
            quorum_weight: big - 2,
            approval_percent: 60,
            deposit: big - 3,
            created_height: 3,
            voting_ends_height: 4,
            executable_height: 5,
            expires_height: 6,
            closed_height: Some(7),
        };
        let vote = VoteInfo { voter: Address([2; 20]), support: false, weight: big, height: 8 };
        let timeline = vec![TimelineEntry { event: "created".into(), height: 3 }];
        let detail = ProposalDetail { proposal, votes: vec![vote], timeline };
        let text = serde_json::to_string(&detail).unwrap();
        assert!(text.starts_with("{\"id\":1,") && text.contains(&format!("\"votes_for\":{big},")), "{text}");
        assert_eq!(serde_json::from_str::<ProposalDetail>(&text).unwrap(), detail);
    }
}

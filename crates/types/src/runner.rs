//! Runners: the registry system actor's address, its calls, and the rules runners and
//! delegations follow.
//!
//! Runners sell off-chain compute. A runner registers at [`RUNNER_REGISTRY_ADDRESS`] with a
//! stake (the transaction's value, at least [`MIN_RUNNER_STAKE`]), a rate card and its
//! capabilities, proves it is alive with heartbeats, and leaves with `deregister`: its stake
//! then unbonds for [`UNBONDING_BLOCKS`] and is paid back by `withdraw`. Any account may
//! `delegate` DRV to a runner (adding to its selection weight) and `undelegate` it with the same
//! unbonding. [`RegistryCall`] is the wire form, shared by clients and the executor.
//!
//! The registry's numbers ([`MIN_RUNNER_STAKE`], [`UNBONDING_BLOCKS`],
//! [`HEARTBEAT_GAP_BLOCKS`]) are the genesis defaults of chain parameters
//! (`crate::chain_params::ChainParams`): execution reads the live values from state, and
//! governance changes them by vote.

use crate::Address;
use crate::args::{Args, ArgsBuilder, ArgsError};
use crate::params::{BASE_UNITS_PER_DRV, LISTING_CELLS, LISTING_CYCLES};
use crate::system_call::{SystemCall, SystemCallError};

/// The runner registry system actor.
pub const RUNNER_REGISTRY_ADDRESS: Address = Address::system(0x01);
/// The job dispatcher system actor.
pub const JOB_DISPATCHER_ADDRESS: Address = Address::system(0x02);

/// Genesis default of the least stake a runner registers with, in base units (1 DRV).
pub const MIN_RUNNER_STAKE: u128 = BASE_UNITS_PER_DRV;
/// Genesis default of the blocks between `deregister` or `undelegate` and the stake being
/// withdrawable.
pub const UNBONDING_BLOCKS: u64 = 100;
/// Genesis default of the heartbeat gap: a runner whose last heartbeat is more than this many
/// blocks old is `unhealthy`.
pub const HEARTBEAT_GAP_BLOCKS: u64 = 50;
/// Reputation a runner starts with (0–100; selection needs at least 50).
pub const INITIAL_REPUTATION: u8 = 80;
/// Most unbonding entries one runner or one delegation has waiting at once.
pub const MAX_PENDING_UNBONDINGS: usize = 16;
/// Most job types a runner offers.
pub const MAX_JOB_TYPES: usize = 16;
/// Longest job type name, in bytes of `a`–`z`, `0`–`9`, `.`, `_`, `-`.
pub const MAX_JOB_TYPE_BYTES: usize = 64;
/// Most jobs a runner may declare it runs at once.
pub const MAX_CONCURRENT_JOBS: u64 = 1_024;

/// Cycles of a `register` (the record and the registration-order entry).
pub const REGISTER_CYCLES: u64 = 20_000;
/// Cycles of an `update`, `deregister`, `delegate`, `undelegate` or `withdraw`.
pub const CHANGE_CYCLES: u64 = 5_000;
/// Cycles of a `heartbeat`.
pub const HEARTBEAT_CYCLES: u64 = 2_000;
/// Cycles of one walk of a job type's index (36 trie nodes read and written). The cost bench
/// (`cargo bench -p drover-execution --bench costs`) times a walk at about 80 µs of the
/// executor, what some 37,000 cycles of wasm take; the price is at least the cost audit's
/// price of a state lookup for every node read and every node written (each write is an
/// operation the state database appends and merkleizes at commit).
pub const INDEX_WALK_CYCLES: u64 = 40_000;
/// Cells of one walk of a job type's index (a new price's path is 36 new nodes of about 85
/// bytes).
pub const INDEX_WALK_CELLS: u64 = 3_072;
/// Cycles of finding the runners a job can afford, once per assignment attempt (the nodes on
/// its `max_price`'s path: at most 32 read).
pub const ELIGIBLE_CYCLES: u64 = 16_000;
/// Cycles of one stake-weighted draw among them (at most 36 nodes, the runner's address and its
/// record read).
pub const DRAW_CYCLES: u64 = 18_000;
/// Genesis default of the least reputation a runner is drawn with.
pub const MIN_SELECTION_REPUTATION: u8 = 50;
/// Genesis default of the reputation a runner gains when its result matches a job's verdict.
pub const REPUTATION_GAIN: u8 = 1;
/// Genesis default of the reputation a runner loses when its result differs from a job's verdict.
pub const REPUTATION_LOSS_WRONG: u8 = 10;
/// Genesis default of the reputation a runner loses when a job it was assigned ends without its result.
pub const REPUTATION_LOSS_SILENT: u8 = 5;
/// Cells of a runner record besides its job type names.
pub const RUNNER_RECORD_CELLS: u64 = 256;
/// Cells of a delegation record.
pub const DELEGATION_CELLS: u64 = 128;

/// Why `name` is not a job type: 1 to [`MAX_JOB_TYPE_BYTES`] characters of `a`–`z`, `0`–`9`, `.`,
/// `_`, `-`.
pub fn check_job_type(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_JOB_TYPE_BYTES
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!("job type {name:?} is not 1 to {MAX_JOB_TYPE_BYTES} characters of a-z 0-9 . _ -"))
    }
}

/// What a runner charges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateCard {
    /// Base units per job it runs.
    pub price_per_job: u128,
}

/// What a runner can run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Job types it runs (1–[`MAX_JOB_TYPES`], each 1–[`MAX_JOB_TYPE_BYTES`] of `a–z0–9._-`).
    pub job_types: Vec<String>,
    /// Jobs it runs at once (1–[`MAX_CONCURRENT_JOBS`]).
    pub max_concurrent_jobs: u64,
}

impl Capabilities {
    /// Why these capabilities are refused (execution answers E1603).
    pub fn check(&self) -> Result<(), String> {
        if self.job_types.is_empty() || self.job_types.len() > MAX_JOB_TYPES {
            return Err(format!("a runner offers 1 to {MAX_JOB_TYPES} job types; got {}", self.job_types.len()));
        }
        for (i, name) in self.job_types.iter().enumerate() {
            check_job_type(name)?;
            if self.job_types[..i].contains(name) {
                return Err(format!("job type {name:?} is listed twice"));
            }
        }
        if !(1..=MAX_CONCURRENT_JOBS).contains(&self.max_concurrent_jobs) {
            return Err(format!("max_concurrent_jobs is 1 to {MAX_CONCURRENT_JOBS}; got {}", self.max_concurrent_jobs));
        }
        Ok(())
    }
}

/// One call of the runner registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryCall {
    /// `register`: the sender becomes a runner; the transaction's value is its stake.
    Register {
        /// Its prices.
        rate_card: RateCard,
        /// What it runs.
        capabilities: Capabilities,
    },
    /// `update`: changes what is given; a value adds to the stake.
    Update {
        /// New prices.
        rate_card: Option<RateCard>,
        /// New capabilities.
        capabilities: Option<Capabilities>,
        /// Pause (no new jobs) or resume.
        paused: Option<bool>,
    },
    /// `heartbeat`: the runner is alive at this height.
    Heartbeat,
    /// `deregister`: the runner leaves; its stake unbonds.
    Deregister,
    /// `delegate`: the transaction's value is delegated to `runner`.
    Delegate {
        /// The runner.
        runner: Address,
    },
    /// `undelegate`: `amount` of the sender's delegation to `runner` unbonds.
    Undelegate {
        /// The runner.
        runner: Address,
        /// Base units.
        amount: u128,
    },
    /// `withdraw`: pays the sender what has finished unbonding with `runner` (its own stake
    /// when the sender is `runner`, and its delegation to it).
    Withdraw {
        /// The runner.
        runner: Address,
    },
}

fn rate_card_args(card: &RateCard) -> ArgsBuilder {
    ArgsBuilder::new().u128("price_per_job", card.price_per_job)
}

fn capabilities_args(capabilities: &Capabilities) -> ArgsBuilder {
    ArgsBuilder::new()
        .texts("job_types", &capabilities.job_types)
        .uint("max_concurrent_jobs", capabilities.max_concurrent_jobs)
}

fn read_rate_card(args: &Args<'_>) -> Result<RateCard, ArgsError> {
    args.only(&["price_per_job"])?;
    Ok(RateCard { price_per_job: args.u128("price_per_job")? })
}

fn read_capabilities(args: &Args<'_>) -> Result<Capabilities, ArgsError> {
    args.only(&["job_types", "max_concurrent_jobs"])?;
    Ok(Capabilities {
        job_types: args.texts("job_types")?.into_iter().map(str::to_owned).collect(),
        max_concurrent_jobs: args.uint("max_concurrent_jobs")?,
    })
}

impl RegistryCall {
    /// What a transaction's limits must cover for this call: its fixed [`cost`](Self::cost)
    /// plus the most index work it can do (a walk of a job type's index per job type it joins,
    /// leaves or reweighs; two for one it leaves), which depends on the runner's record.
    pub fn max_cost(&self) -> (u64, u64) {
        let walks = match self {
            RegistryCall::Register { capabilities, .. } => capabilities.job_types.len(),
            RegistryCall::Update { capabilities, .. } => {
                2 * MAX_JOB_TYPES + capabilities.as_ref().map_or(MAX_JOB_TYPES, |c| c.job_types.len())
            }
            RegistryCall::Heartbeat | RegistryCall::Delegate { .. } | RegistryCall::Undelegate { .. } => MAX_JOB_TYPES,
            RegistryCall::Deregister => 2 * MAX_JOB_TYPES,
            RegistryCall::Withdraw { .. } => 0,
        } as u64;
        let (cycles, cells) = self.cost();
        (cycles + walks * INDEX_WALK_CYCLES, cells + walks * INDEX_WALK_CELLS)
    }
}

impl SystemCall for RegistryCall {
    const ADDRESS: Address = RUNNER_REGISTRY_ADDRESS;
    const NAME: &'static str = "the runner registry";

    /// Every handler of the registry.
    const HANDLERS: &'static [&'static str] =
        &["register", "update", "heartbeat", "deregister", "delegate", "undelegate", "withdraw"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            RegistryCall::Register { .. } => "register",
            RegistryCall::Update { .. } => "update",
            RegistryCall::Heartbeat => "heartbeat",
            RegistryCall::Deregister => "deregister",
            RegistryCall::Delegate { .. } => "delegate",
            RegistryCall::Undelegate { .. } => "undelegate",
            RegistryCall::Withdraw { .. } => "withdraw",
        }
    }

    /// Whether the call may carry value (stake or a delegation); the others refuse it.
    fn takes_value(&self) -> bool {
        matches!(self, RegistryCall::Register { .. } | RegistryCall::Update { .. } | RegistryCall::Delegate { .. })
    }

    /// What the call costs before it runs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64) {
        let names = |c: &Capabilities| c.job_types.iter().map(|t| t.len() as u64).sum::<u64>();
        match self {
            RegistryCall::Register { capabilities, .. } => (REGISTER_CYCLES, RUNNER_RECORD_CELLS + names(capabilities)),
            RegistryCall::Update { capabilities, .. } => {
                (CHANGE_CYCLES, RUNNER_RECORD_CELLS + capabilities.as_ref().map_or(0, names))
            }
            RegistryCall::Heartbeat => (HEARTBEAT_CYCLES, 0),
            RegistryCall::Deregister => (CHANGE_CYCLES, 0),
            // A new delegation joins its delegator's listing; an emptied one leaves it.
            RegistryCall::Delegate { .. } | RegistryCall::Withdraw { .. } => {
                (CHANGE_CYCLES + LISTING_CYCLES, DELEGATION_CELLS + LISTING_CELLS)
            }
            RegistryCall::Undelegate { .. } => (CHANGE_CYCLES, DELEGATION_CELLS),
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        let args = ArgsBuilder::new();
        let args = match self {
            RegistryCall::Register { rate_card, capabilities } => {
                args.map("rate_card", rate_card_args(rate_card)).map("capabilities", capabilities_args(capabilities))
            }
            RegistryCall::Update { rate_card, capabilities, paused } => {
                let args = match rate_card {
                    Some(card) => args.map("rate_card", rate_card_args(card)),
                    None => args,
                };
                let args = match capabilities {
                    Some(c) => args.map("capabilities", capabilities_args(c)),
                    None => args,
                };
                match paused {
                    Some(paused) => args.bool("paused", *paused),
                    None => args,
                }
            }
            RegistryCall::Heartbeat | RegistryCall::Deregister => args,
            RegistryCall::Delegate { runner } | RegistryCall::Withdraw { runner } => args.address("runner", runner),
            RegistryCall::Undelegate { runner, amount } => args.address("runner", runner).u128("amount", *amount),
        };
        args.encode()
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        let call = match handler {
            "register" => {
                args.only(&["rate_card", "capabilities"])?;
                RegistryCall::Register {
                    rate_card: read_rate_card(&args.map("rate_card")?)?,
                    capabilities: read_capabilities(&args.map("capabilities")?)?,
                }
            }
            "update" => {
                args.only(&["paused", "rate_card", "capabilities"])?;
                RegistryCall::Update {
                    rate_card: args.opt_map("rate_card")?.map(|a| read_rate_card(&a)).transpose()?,
                    capabilities: args.opt_map("capabilities")?.map(|a| read_capabilities(&a)).transpose()?,
                    paused: args.opt_bool("paused")?,
                }
            }
            "heartbeat" | "deregister" => {
                args.only(&[])?;
                if handler == "heartbeat" { RegistryCall::Heartbeat } else { RegistryCall::Deregister }
            }
            "delegate" | "withdraw" => {
                args.only(&["runner"])?;
                let runner = args.address("runner")?;
                if handler == "delegate" {
                    RegistryCall::Delegate { runner }
                } else {
                    RegistryCall::Withdraw { runner }
                }
            }
            "undelegate" => {
                args.only(&["amount", "runner"])?;
                RegistryCall::Undelegate { runner: args.address("runner")?, amount: args.u128("amount")? }
            }
            other => return Err(SystemCallError::unknown_handler::<Self>(other)),
        };
        Ok(call)
    }
}

/// A runner's health as the API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// Registered, not paused, heartbeat within the gap.
    Healthy,
    /// Registered but its last heartbeat is older than the gap.
    Unhealthy,
    /// Registered and paused by its own `update`.
    Paused,
    /// Deregistered (its stake may still be unbonding).
    Deregistered,
}

impl Health {
    /// The health of a runner with these facts at `height`, under a heartbeat gap of
    /// `gap_blocks` (the chain parameter `heartbeat_gap_blocks`).
    pub fn at(height: u64, last_heartbeat_height: u64, paused: bool, deregistered: bool, gap_blocks: u64) -> Health {
        if deregistered {
            Health::Deregistered
        } else if paused {
            Health::Paused
        } else if height.saturating_sub(last_heartbeat_height) > gap_blocks {
            Health::Unhealthy
        } else {
            Health::Healthy
        }
    }

    /// The API's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Healthy => "healthy",
            Health::Unhealthy => "unhealthy",
            Health::Paused => "paused",
            Health::Deregistered => "deregistered",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capabilities() -> Capabilities {
        Capabilities { job_types: vec!["echo".into(), "wasm".into()], max_concurrent_jobs: 4 }
    }

    #[test]
    fn every_call_round_trips_through_its_message() {
        let runner = Address([7; 20]);
        let card = RateCard { price_per_job: u128::MAX };
        for call in [
            RegistryCall::Register { rate_card: card.clone(), capabilities: capabilities() },
            RegistryCall::Update { rate_card: None, capabilities: None, paused: None },
            RegistryCall::Update { rate_card: Some(card), capabilities: Some(capabilities()), paused: Some(true) },
            RegistryCall::Heartbeat,
            RegistryCall::Deregister,
            RegistryCall::Delegate { runner },
            RegistryCall::Undelegate { runner, amount: 5 },
            RegistryCall::Withdraw { runner },
        ] {
            let message = call.message();
            assert_eq!(RegistryCall::decode(&message.handler, &message.payload), Ok(call));
        }
        assert!(matches!(RegistryCall::decode("steal", &[0xa0]), Err(SystemCallError::Handler { .. })));
        let with_extra = ArgsBuilder::new().bool("x", true).encode();
        assert!(matches!(RegistryCall::decode("heartbeat", &with_extra), Err(SystemCallError::Args(_))));
    }

    #[test]
    fn every_argument_missing_or_mistyped_is_refused() {
        let runner = Address([7; 20]);
        let full_update = RegistryCall::Update {
            rate_card: Some(RateCard { price_per_job: 1 }),
            capabilities: Some(capabilities()),
            paused: Some(false),
        };
        let calls = [
            RegistryCall::Register { rate_card: RateCard { price_per_job: 1 }, capabilities: capabilities() },
            full_update,
            RegistryCall::Delegate { runner },
            RegistryCall::Undelegate { runner, amount: 5 },
            RegistryCall::Withdraw { runner },
        ];
        for call in calls {
            let message = call.message();
            for (what, payload) in crate::args::mutations::broken(&message.payload) {
                // Every argument of update is optional; none of the others is.
                let optional = message.handler == "update" && what.ends_with("missing");
                let decoded = RegistryCall::decode(&message.handler, &payload);
                assert_eq!(decoded.is_ok(), optional, "{} with {what}: {decoded:?}", message.handler);
            }
        }
        // Nested maps are checked the same way.
        let register = RegistryCall::Register { rate_card: RateCard::default(), capabilities: capabilities() };
        let inner = crate::args::ArgsBuilder::new().texts("job_types", &["echo".into()]);
        let missing_max = crate::args::ArgsBuilder::new()
            .map("rate_card", crate::args::ArgsBuilder::new().u128("price_per_job", 1))
            .map("capabilities", inner)
            .encode();
        assert!(RegistryCall::decode(register.handler(), &missing_max).is_err());
    }

    #[test]
    fn capability_rules() {
        assert!(capabilities().check().is_ok());
        let with = |job_types: Vec<&str>, max| Capabilities {
            job_types: job_types.into_iter().map(str::to_owned).collect(),
            max_concurrent_jobs: max,
        };
        assert!(with(vec![], 1).check().is_err());
        assert!(with(vec!["Echo"], 1).check().is_err());
        assert!(with(vec!["echo", "echo"], 1).check().is_err());
        assert!(with(vec!["echo"], 0).check().is_err());
        assert!(with(vec!["echo"], MAX_CONCURRENT_JOBS + 1).check().is_err());
        assert!(with(vec![&"a".repeat(65)], 1).check().is_err());
        assert!(with((0..17).map(|_| "a").collect(), 1).check().is_err());
    }

    #[test]
    fn health_follows_the_heartbeat_gap() {
        assert_eq!(Health::at(100, 100 - HEARTBEAT_GAP_BLOCKS, false, false, HEARTBEAT_GAP_BLOCKS), Health::Healthy);
        assert_eq!(Health::at(101, 100 - HEARTBEAT_GAP_BLOCKS, false, false, HEARTBEAT_GAP_BLOCKS), Health::Unhealthy);
        assert_eq!(Health::at(100, 100, true, false, HEARTBEAT_GAP_BLOCKS), Health::Paused);
        assert_eq!(Health::at(100, 100, true, true, HEARTBEAT_GAP_BLOCKS), Health::Deregistered);
    }
}

//! The chain parameters: what execution reads from state and governance changes by vote, their
//! bounds, and the relations between them.
//!
//! Every parameter execution depends on and that may change without a new binary is a field of
//! [`ChainParams`], stored in the governance actor's storage (`drover_state::governance`), seeded
//! from genesis and read at the start of every block, so every validator applies the same values
//! at the same height. Each has compiled-in bounds ([`PARAMS`]) that no proposal can cross: a
//! vote can tune the chain, not break it (a zero voting period, a zero block target). What must
//! never change by vote stays a constant and says so where it is defined: the VM's safety bounds
//! (`drover_vm::limits`), the consensus timeouts, the sizes of keys and records. One line of
//! `chain_params!` per parameter gives its field, default, bounds, meaning, encoding and API
//! listing; `docs/governance.md` lists them all (a test checks).
//!
//! A proposal's changes (`crate::governance`) are checked against these bounds when it is made
//! (unknown names, values out of bounds, repeats, and the [relations](ChainParams::broken_relations)
//! between parameters, on the values they would give together) and applied at `execute` all
//! together, checked again; they are in force from the next block.
//!
//! The bounds of the job parameters are the caps of `crate::job`, which knows nothing of this
//! module: a job is checked against [`ChainParams::job_limits`].
//!
//! # Deferred work stays possible
//!
//! Each block runs its due timers, mailbox deliveries and the jobs' due entries from a budget
//! of each meter's target, cut in four parts ([`DEFERRED_SHARE_PARTS`]): timers one, deliveries
//! two, due entries one, a share the others cannot take. An entry runs when its reservation
//! (its cycles and [`SYSTEM_RUN_CELLS_LIMIT`] cells) fits what its share has left. So that
//! every accepted entry always fits an untouched share, whatever votes pass, the smallest share
//! — a quarter of each target — must hold the largest entry:
//!
//! - `target_cells ≥ 4 × SYSTEM_RUN_CELLS_LIMIT` and `target_cycles ≥ 4 × DUE_ENTRY_CYCLES_LIMIT`
//!   hold for every value in bounds ([`MIN_TARGET_CELLS`], [`MIN_TARGET_CYCLES`], asserted at
//!   compile time);
//! - `4 × max_attached_cycles ≤ target_cycles` and `4 × max_callback_cycles ≤ target_cycles`
//!   relate two parameters: [`ChainParams::with_changes`] refuses a proposal that changes one
//!   of them and leaves the relation broken ([`ParamError::Relation`], E1710), and the bounds
//!   keep every target in bounds reachable (the least caps fit a quarter of the least target).
//!
//! A quarter rather than a larger fraction: deliveries' share then holds two of the largest
//! messages, and a timer or a due entry at its largest still runs every block. An entry
//! accepted under earlier, larger values (a vote lowered the target) is not stranded either:
//! the actors' deferred work runs such an entry first in its share, its budget cut to the
//! share (`drover_execution`, `docs/actors.md`).

use crate::args::{Args, ArgsBuilder, ArgsError};
use crate::job::{DUE_ENTRY_CYCLES_LIMIT, JobLimits, MAX_CALLBACK_CYCLES};
use crate::params::{BASE_UNITS_PER_DRV, DEFERRED_SHARE_PARTS, MAX_ATTACHED_CYCLES_CAP, SYSTEM_RUN_CELLS_LIMIT};

macro_rules! chain_params {
    ($($(#[doc = $doc:literal])* $name:ident: $ty:ty = $default:expr, $min:expr, $max:expr;)*) => {
        /// The live chain parameters (see the module documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct ChainParams {
            $($(#[doc = $doc])* pub $name: $ty,)*
        }

        impl Default for ChainParams {
            /// The defaults a genesis starts from.
            fn default() -> Self {
                ChainParams { $($name: $default,)* }
            }
        }

        /// Every parameter: name, default, bounds and meaning, in canonical order.
        pub const PARAMS: &[ParamSpec] = &[
            $(ParamSpec {
                name: stringify!($name),
                default: $default as u128,
                min: $min as u128,
                max: $max as u128,
                description: concat!($($doc),*),
            },)*
        ];

        impl ChainParams {
            /// The value of the parameter `name`, if there is one.
            pub fn get(&self, name: &str) -> Option<u128> {
                match name {
                    $(stringify!($name) => Some(self.$name as u128),)*
                    _ => None,
                }
            }

            /// Sets `name` to `value` within its bounds (what a proposal may do).
            pub fn set(&mut self, name: &str, value: u128) -> Result<(), ParamError> {
                let spec = ParamSpec::named(name).ok_or_else(|| ParamError::Unknown(name.to_owned()))?;
                if value < spec.min || value > spec.max {
                    return Err(ParamError::OutOfBounds { name: spec.name, value, min: spec.min, max: spec.max });
                }
                self.assign(name, value)
            }

            /// Sets `name` to any `value` its field holds: a genesis may start outside the
            /// bounds proposals keep to (a test network's tiny targets).
            fn assign(&mut self, name: &str, value: u128) -> Result<(), ParamError> {
                match name {
                    $(stringify!($name) => {
                        self.$name = <$ty>::try_from(value).map_err(|_| ParamError::OutOfBounds {
                            name: stringify!($name),
                            value,
                            min: 0,
                            max: <$ty>::MAX as u128,
                        })?;
                    })*
                    _ => return Err(ParamError::Unknown(name.to_owned())),
                }
                Ok(())
            }
        }
    };
}

/// One parameter's name, default, bounds and meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// Its name, as proposals and the API spell it.
    pub name: &'static str,
    /// Its value in a new genesis.
    pub default: u128,
    /// Least value a proposal may set.
    pub min: u128,
    /// Greatest value a proposal may set.
    pub max: u128,
    /// What it governs, with its unit.
    pub description: &'static str,
}

impl ParamSpec {
    /// The parameter called `name`.
    pub fn named(name: &str) -> Option<&'static ParamSpec> {
        PARAMS.iter().find(|spec| spec.name == name)
    }
}

chain_params! {
    /// Cycles per block the cycle basefee steers towards (a block may use twice as many).
    target_cycles: u64 = DEFAULT_TARGET_CYCLES, MIN_TARGET_CYCLES, 1_000_000_000;
    /// Cells per block the cell basefee steers towards (a block may use twice as many).
    target_cells: u64 = 500_000, MIN_TARGET_CELLS, 100_000_000;
    /// Floor of the cycle basefee, base units per cycle.
    min_basefee_cycle: u128 = 1, 1, MAX_BASEFEE_FLOOR;
    /// Floor of the cell basefee, base units per cell.
    min_basefee_cell: u128 = 1, 1, MAX_BASEFEE_FLOOR;
    /// Least stake a runner registers with, base units.
    min_runner_stake: u128 = crate::runner::MIN_RUNNER_STAKE, 1, 1_000_000 * BASE_UNITS_PER_DRV;
    /// Blocks between a deregistration or undelegation and the stake being withdrawable.
    unbonding_blocks: u64 = crate::runner::UNBONDING_BLOCKS, 1, 1_000_000;
    /// A runner whose last heartbeat is more than this many blocks old is unhealthy.
    heartbeat_gap_blocks: u64 = crate::runner::HEARTBEAT_GAP_BLOCKS, 5, 100_000;
    /// Least reputation (0–100) a runner is drawn for jobs with.
    min_selection_reputation: u8 = crate::runner::MIN_SELECTION_REPUTATION, 0, 100;
    /// Reputation a runner gains when its result matches a job's verdict.
    reputation_gain: u8 = crate::runner::REPUTATION_GAIN, 0, 100;
    /// Reputation a runner loses when its result differs from a job's verdict.
    reputation_loss_wrong: u8 = crate::runner::REPUTATION_LOSS_WRONG, 0, 100;
    /// Reputation a runner loses when a job it was assigned fails without its result.
    reputation_loss_silent: u8 = crate::runner::REPUTATION_LOSS_SILENT, 0, 100;
    /// Most timers fired in one block (each block examines at most eight times as many slots).
    max_timer_fires_per_block: u64 = 128, 1, 1_024;
    /// Most mailbox messages delivered in one block.
    max_deliveries_per_block: u64 = 256, 1, 1_024;
    /// Most handler and payload bytes pending in one actor's mailbox.
    mailbox_capacity_bytes: u64 = 1_048_576, 1_024, 67_108_864;
    /// Blocks a proposal is open for votes.
    voting_period_blocks: u64 = 100, 10, 1_000_000;
    /// Votes (for and against) needed, as a percent of the weight locked when the proposal was made
    /// (at most half: weight that never votes again, a lost key, cannot freeze governance unless it
    /// is a majority).
    quorum_percent: u64 = 10, 1, 50;
    /// Least weight of votes (for and against) any proposal needs, base units: with little or
    /// nothing locked, a percent of it would let a single small vote pass a proposal.
    min_quorum_weight: u128 = 1_000 * BASE_UNITS_PER_DRV, 1, 100_000 * BASE_UNITS_PER_DRV;
    /// Votes for needed, as a percent of the votes cast (above half: a tie never passes).
    approval_percent: u64 = 51, 51, 100;
    /// Blocks between the end of a passed proposal's vote and the first block it may be executed in.
    timelock_blocks: u64 = 20, 1, 1_000_000;
    /// Blocks after its timelock during which a passed proposal may be executed; then it expires.
    execution_window_blocks: u64 = 1_000, 10, 1_000_000;
    /// Least stake a storage relay registers with, base units.
    min_relay_stake: u128 = crate::storage::MIN_RELAY_STAKE, 1, 1_000_000 * BASE_UNITS_PER_DRV;
    /// Fee a volume's creation burns, base units.
    volume_creation_fee: u128 = crate::storage::VOLUME_CREATION_FEE, 0, 1_000 * BASE_UNITS_PER_DRV;
    /// Blocks a volume stays recoverable after its deposit ran out or its owner deleted it.
    volume_grace_blocks: u64 = crate::storage::VOLUME_GRACE_BLOCKS, 10, 1_000_000;
    /// Deposit a proposal carries, base units (returned when it is closed).
    proposal_deposit: u128 = 10 * BASE_UNITS_PER_DRV, 1, 10_000 * BASE_UNITS_PER_DRV;
    /// Largest WebAssembly module a deploy, an upgrade or a library publish may carry, in bytes.
    max_code_bytes: u64 = 256 * 1024, 1_024, crate::params::MAX_CODE_BYTES_CAP;
    /// Largest value an actor may store under one key, in bytes.
    max_storage_value_bytes: u64 = 64 * 1024, 1_024, crate::params::MAX_STORAGE_VALUE_BYTES_CAP;
    /// Most timers one actor may have pending.
    max_pending_timers_per_actor: u64 = 1_024, 1, 65_536;
    /// Most runners one job may ask for.
    max_runners_per_job: u64 = crate::job::MAX_RUNNERS_PER_JOB, 1, crate::job::MAX_RUNNERS_PER_JOB;
    /// Longest time a job may wait for its verdict, in blocks from its submission.
    max_job_timeout_blocks: u64 = 10_000, 10, crate::job::MAX_JOB_TIMEOUT_BLOCKS;
    /// Largest job input, in bytes.
    max_job_input_bytes: u64 = crate::job::MAX_JOB_INPUT_BYTES as u64, 1_024, crate::job::MAX_JOB_INPUT_BYTES as u64;
    /// Most cycles a job's callback delivery may buy (at most a quarter of `target_cycles`).
    max_callback_cycles: u64 = DEFAULT_ATTACHED_CYCLES, MIN_ATTACHED_CYCLES, MAX_CALLBACK_CYCLES;
    /// Most cycles an actor may attach to a mailbox message or a timer (at most a quarter of
    /// `target_cycles`).
    max_attached_cycles: u64 = DEFAULT_ATTACHED_CYCLES, MIN_ATTACHED_CYCLES, MAX_ATTACHED_CYCLES_CAP;
}

/// Least `target_cycles` a vote may set: a quarter of it (the due entries' share) holds a due
/// entry's whole budget.
pub const MIN_TARGET_CYCLES: u64 = DEFERRED_SHARE_PARTS * DUE_ENTRY_CYCLES_LIMIT;
/// Least `target_cells` a vote may set: a quarter of it (the smallest share) holds the cells of
/// a timer fire, a delivery or a due entry.
pub const MIN_TARGET_CELLS: u64 = DEFERRED_SHARE_PARTS * SYSTEM_RUN_CELLS_LIMIT;
/// Least `max_attached_cycles` and `max_callback_cycles` a vote may set: enough for a handler
/// that loads a small module and writes a few keys.
pub const MIN_ATTACHED_CYCLES: u64 = 100_000;
/// Genesis `target_cycles`.
const DEFAULT_TARGET_CYCLES: u64 = 10_000_000;
/// Genesis `max_attached_cycles` and `max_callback_cycles`: a quarter of the genesis
/// `target_cycles`, the most the relations allow there.
const DEFAULT_ATTACHED_CYCLES: u64 = DEFAULT_TARGET_CYCLES / DEFERRED_SHARE_PARTS;

// The bounds keep deferred work possible (see the module documentation): the least target
// holds the largest due entry and cell reservation in its smallest share, and the least caps
// fit the least target, so no target in bounds is unreachable.
const _: () = assert!(MIN_TARGET_CYCLES / DEFERRED_SHARE_PARTS >= DUE_ENTRY_CYCLES_LIMIT);
const _: () = assert!(MIN_TARGET_CELLS / DEFERRED_SHARE_PARTS >= SYSTEM_RUN_CELLS_LIMIT);
const _: () = assert!(DEFERRED_SHARE_PARTS * MIN_ATTACHED_CYCLES <= MIN_TARGET_CYCLES);
const _: () = assert!(MIN_ATTACHED_CYCLES <= DEFAULT_ATTACHED_CYCLES && MIN_TARGET_CYCLES <= DEFAULT_TARGET_CYCLES);
const _: () =
    assert!(DEFAULT_ATTACHED_CYCLES <= MAX_ATTACHED_CYCLES_CAP && DEFAULT_ATTACHED_CYCLES <= MAX_CALLBACK_CYCLES);

/// Highest floor a vote may give either basefee, base units per unit: at it a transfer's 21,000
/// cycles cost 0.21 DRV, so a raised floor can make the chain dear but never unusable (a vote
/// to lower it again stays affordable).
pub const MAX_BASEFEE_FLOOR: u128 = 10_000;

/// Why a parameter change is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// No parameter has this name.
    #[error("no chain parameter is called {0:?} (GET /governance/params lists them)")]
    Unknown(String),
    /// The value is outside the parameter's bounds.
    #[error("{name} must be {min} to {max}; {value} is outside")]
    OutOfBounds {
        /// The parameter.
        name: &'static str,
        /// The value asked for.
        value: u128,
        /// Its least value.
        min: u128,
        /// Its greatest value.
        max: u128,
    },
    /// The same parameter twice in one proposal (impossible in a canonical map; kept for
    /// callers building changes by hand).
    #[error("{0} is changed twice")]
    Repeated(String),
    /// The values together break a relation between parameters that keeps deferred work
    /// possible (see the module documentation).
    #[error("{name} = {value} is above a quarter of target_cycles ({target_cycles}): deferred work could not run it")]
    Relation {
        /// The parameter that must fit a quarter of the target.
        name: &'static str,
        /// Its value.
        value: u64,
        /// The cycle target it would have.
        target_cycles: u64,
    },
}

impl ChainParams {
    /// These parameters with `changes` applied, all or none, each within its bounds and the
    /// relations they touch kept.
    pub fn with_changes(&self, changes: &[(String, u128)]) -> Result<ChainParams, ParamError> {
        let mut next = *self;
        for (i, (name, value)) in changes.iter().enumerate() {
            if changes[..i].iter().any(|(other, _)| other == name) {
                return Err(ParamError::Repeated(name.clone()));
            }
            next.set(name, *value)?;
        }
        // A relation the proposal touches must hold after it (one a genesis started outside
        // of, like its bounds, binds only the proposals that change its parameters).
        let touches = |name: &str| changes.iter().any(|(changed, _)| changed == name || changed == "target_cycles");
        match next
            .broken_relations()
            .find(|broken| matches!(broken, ParamError::Relation { name, .. } if touches(name)))
        {
            Some(broken) => Err(broken),
            None => Ok(next),
        }
    }

    /// The relations between parameters these values break (see the module documentation):
    /// every budget an actor attaches or a callback buys must fit the smallest share of the
    /// deferred budget, a quarter of `target_cycles`.
    pub fn broken_relations(&self) -> impl Iterator<Item = ParamError> {
        let target_cycles = self.target_cycles;
        let share = target_cycles / DEFERRED_SHARE_PARTS;
        [("max_attached_cycles", self.max_attached_cycles), ("max_callback_cycles", self.max_callback_cycles)]
            .into_iter()
            .filter(move |(_, value)| *value > share)
            .map(move |(name, value)| ParamError::Relation { name, value, target_cycles })
    }

    /// These parameters with a genesis's `values`: each any value its field holds (a genesis may
    /// start outside the bounds proposals keep to, a test network's tiny targets); an unknown
    /// name is refused.
    pub fn with_genesis_values<'v>(
        &self,
        values: impl IntoIterator<Item = (&'v str, u128)>,
    ) -> Result<ChainParams, ParamError> {
        let mut next = *self;
        for (name, value) in values {
            next.assign(name, value)?;
        }
        Ok(next)
    }

    /// The canonical CBOR map `{name: uint}` of every parameter (the stored record).
    pub fn encode(&self) -> Vec<u8> {
        PARAMS
            .iter()
            .fold(ArgsBuilder::new(), |args, spec| args.u128(spec.name, self.get(spec.name).unwrap_or(0)))
            .encode()
    }

    /// Strict decode: at most one value per known parameter, each fitting its field; a parameter
    /// the record does not hold (added after it was written) takes its default.
    pub fn decode(bytes: &[u8]) -> Result<ChainParams, ArgsError> {
        let args = Args::decode(bytes)?;
        let names: Vec<&str> = PARAMS.iter().map(|spec| spec.name).collect();
        args.only(&names)?;
        let mut params = ChainParams::default();
        for spec in PARAMS {
            // A parameter added by a later release is absent from a record written before it:
            // it takes its default, so an upgraded node still reads the chain's record.
            let Some(value) = args.opt_u128(spec.name)? else { continue };
            params
                .assign(spec.name, value)
                .map_err(|_| ArgsError::Invalid { key: spec.name.to_owned(), expected: "a value its field holds" })?;
        }
        Ok(params)
    }
}

impl ChainParams {
    /// The job limits in force under these parameters.
    pub fn job_limits(&self) -> JobLimits {
        JobLimits {
            max_runners: self.max_runners_per_job,
            max_timeout_blocks: self.max_job_timeout_blocks,
            max_input_bytes: self.max_job_input_bytes,
            max_callback_cycles: self.max_callback_cycles,
        }
    }
}

/// The most bytes the parameters record can take: every parameter at its largest value.
pub fn max_params_record_bytes() -> u64 {
    let entries = PARAMS.iter().map(|spec| spec.name.len() + ENTRY_OVERHEAD_BYTES).sum::<usize>();
    // The map's head.
    (entries + 9) as u64
}

/// Most bytes a `{name: uint}` entry takes besides the name: the name's text head (2) and a
/// u128 as a tagged 16-byte big number (18).
pub(crate) const ENTRY_OVERHEAD_BYTES: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_within_their_bounds_and_round_trip() {
        for spec in PARAMS {
            assert!(spec.min <= spec.default && spec.default <= spec.max, "{}", spec.name);
        }
        let params = ChainParams::default();
        assert_eq!(ChainParams::decode(&params.encode()), Ok(params));
        assert_eq!(params.get("target_cycles"), Some(10_000_000));
    }

    #[test]
    fn a_record_written_before_a_parameter_existed_reads_with_its_default() {
        let params = ChainParams { target_cycles: 20_000_000, ..ChainParams::default() };
        // The record as a release without `volume_grace_blocks` wrote it.
        let older = PARAMS
            .iter()
            .filter(|spec| spec.name != "volume_grace_blocks")
            .fold(ArgsBuilder::new(), |args, spec| args.u128(spec.name, params.get(spec.name).unwrap_or(0)))
            .encode();
        assert_eq!(ChainParams::decode(&older), Ok(params), "the rest as stored, the new one at its default");
        // A name no release knows is still refused.
        let unknown = ArgsBuilder::new().u128("no_such_parameter", 1).encode();
        assert!(ChainParams::decode(&unknown).is_err());
    }

    #[test]
    fn changes_are_checked_all_or_none() {
        let params = ChainParams::default();
        let next = params.with_changes(&[("target_cycles".into(), 20_000_000)]).unwrap();
        assert_eq!(next.target_cycles, 20_000_000);
        assert!(matches!(params.with_changes(&[("nope".into(), 1)]), Err(ParamError::Unknown(_))));
        assert!(matches!(
            params.with_changes(&[("voting_period_blocks".into(), 0)]),
            Err(ParamError::OutOfBounds { .. })
        ));
        assert!(matches!(
            params.with_changes(&[("target_cycles".into(), u128::MAX)]),
            Err(ParamError::OutOfBounds { .. })
        ));
        let twice = [("timelock_blocks".into(), 5), ("timelock_blocks".into(), 6)];
        assert!(matches!(params.with_changes(&twice), Err(ParamError::Repeated(_))));
    }

    #[test]
    fn no_proposal_switches_deferred_work_off() {
        let params = ChainParams::default();
        assert_eq!(params.broken_relations().count(), 0, "the defaults keep the relations");
        // Below what one timer fire, delivery or due entry reserves in a quarter of a target.
        let below_cells = [("target_cells".into(), u128::from(4 * SYSTEM_RUN_CELLS_LIMIT - 1))];
        assert!(matches!(params.with_changes(&below_cells), Err(ParamError::OutOfBounds { .. })));
        let below_due = [("target_cycles".into(), u128::from(4 * DUE_ENTRY_CYCLES_LIMIT - 1))];
        assert!(matches!(params.with_changes(&below_due), Err(ParamError::OutOfBounds { .. })));
        // A budget above a quarter of the target, alone or with a target lowered under it.
        let relation = |changes: &[(&str, u128)]| {
            let changes: Vec<(String, u128)> = changes.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect();
            params.with_changes(&changes)
        };
        for broken in [
            &[("max_callback_cycles", 2_500_001)][..],
            &[("max_attached_cycles", 10_000_000)],
            &[("target_cycles", 9_999_999)],
            &[("target_cycles", 20_000_000), ("max_attached_cycles", 5_000_001)],
        ] {
            assert!(matches!(relation(broken), Err(ParamError::Relation { .. })), "{broken:?}");
        }
        // Changed together, they keep it.
        let raised = relation(&[("target_cycles", 40_000_000), ("max_attached_cycles", 10_000_000)]).unwrap();
        assert_eq!(raised.max_attached_cycles, 10_000_000);
        let lowered = relation(&[
            ("target_cycles", u128::from(MIN_TARGET_CYCLES)),
            ("max_attached_cycles", u128::from(DUE_ENTRY_CYCLES_LIMIT)),
            ("max_callback_cycles", u128::from(MIN_ATTACHED_CYCLES)),
        ]);
        assert!(lowered.is_ok(), "{lowered:?}");
        assert_eq!(
            relation(&[("max_callback_cycles", 2_500_001)]).unwrap_err().to_string(),
            "max_callback_cycles = 2500001 is above a quarter of target_cycles (10000000): deferred work could not run it"
        );
    }

    #[test]
    fn a_relation_a_genesis_broke_binds_only_the_proposals_that_touch_it() {
        let genesis = ChainParams::default().with_genesis_values([("target_cycles", 7)]).unwrap();
        assert_eq!(genesis.broken_relations().count(), 2);
        assert!(genesis.with_changes(&[("voting_period_blocks".into(), 20)]).is_ok());
        assert!(matches!(
            genesis.with_changes(&[("max_attached_cycles".into(), 100_000)]),
            Err(ParamError::Relation { name: "max_attached_cycles", .. })
        ));
        let fixed = genesis.with_changes(&[("target_cycles".into(), 10_000_000)]).unwrap();
        assert_eq!(fixed.broken_relations().count(), 0);
    }

    #[test]
    fn the_job_limits_are_the_live_parameters() {
        let governed = ChainParams { max_runners_per_job: 3, max_job_timeout_blocks: 50, ..Default::default() };
        let limits = governed.job_limits();
        assert_eq!((limits.max_runners, limits.max_timeout_blocks), (3, 50));
        assert_eq!(ChainParams::default().job_limits().max_input_bytes, crate::job::MAX_JOB_INPUT_BYTES as u64);
    }
}

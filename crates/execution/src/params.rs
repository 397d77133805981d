//! Fee-market parameters and the per-block limits derived from them.

use drover_types::chain_params::ChainParams;
use serde::{Deserialize, Serialize};

/// Genesis target of cycles per block.
pub const GENESIS_TARGET_CYCLES: u64 = 10_000_000;
/// Genesis target of cells per block.
pub const GENESIS_TARGET_CELLS: u64 = 500_000;
/// Genesis floor of the cycle basefee, in base units per cycle.
pub const GENESIS_MIN_BASEFEE_CYCLE: u128 = 1;
/// Genesis floor of the cell basefee, in base units per cell.
pub const GENESIS_MIN_BASEFEE_CELL: u128 = 1;
/// Cycle basefee of block 1, in base units per cycle (a plain transfer then burns 21,000 base
/// units, 0.000021 DRV).
pub const GENESIS_INITIAL_BASEFEE_CYCLE: u128 = 1;
/// Cell basefee of block 1, in base units per cell.
pub const GENESIS_INITIAL_BASEFEE_CELL: u128 = 1;

/// A block may use this many times the target of each meter.
pub const BLOCK_LIMIT_TARGET_MULTIPLE: u64 = 2;

/// Parameters of the two fee markets (cycles and cells) as a genesis gives them. The targets and
/// floors seed the chain parameters in state ([`FeeParams::genesis_chain_params`]), which
/// governance may change; execution uses [`FeeParams::governed`] by them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeeParams {
    /// Cycles per block the cycle basefee steers towards.
    pub target_cycles: u64,
    /// Cells per block the cell basefee steers towards.
    pub target_cells: u64,
    /// The cycle basefee never falls below this (base units per cycle).
    pub min_basefee_cycle: u128,
    /// The cell basefee never falls below this (base units per cell).
    pub min_basefee_cell: u128,
    /// Cycle basefee in force for block 1 (base units per cycle).
    pub initial_basefee_cycle: u128,
    /// Cell basefee in force for block 1 (base units per cell).
    pub initial_basefee_cell: u128,
}

pub use drover_types::validity::Meter;

/// Why fee parameters are unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeeParamsError {
    /// The meter's target is 0.
    #[error("the {0} target must be positive")]
    ZeroTarget(Meter),
    /// The meter's minimum basefee is 0.
    #[error("the minimum {0} basefee must be at least 1 (a zero basefee could never rise again)")]
    ZeroMinBasefee(Meter),
    /// The meter's initial basefee is below its minimum.
    #[error("the initial {0} basefee is below the minimum")]
    InitialBelowMin(Meter),
}

impl Default for FeeParams {
    /// The genesis defaults.
    fn default() -> Self {
        Self {
            target_cycles: GENESIS_TARGET_CYCLES,
            target_cells: GENESIS_TARGET_CELLS,
            min_basefee_cycle: GENESIS_MIN_BASEFEE_CYCLE,
            min_basefee_cell: GENESIS_MIN_BASEFEE_CELL,
            initial_basefee_cycle: GENESIS_INITIAL_BASEFEE_CYCLE,
            initial_basefee_cell: GENESIS_INITIAL_BASEFEE_CELL,
        }
    }
}

impl FeeParams {
    /// Checks the parameters once, when the genesis is loaded. Every function of this crate is
    /// total even on unchecked parameters; these rules keep the markets meaningful.
    pub fn validate(&self) -> Result<(), FeeParamsError> {
        for (meter, target, min, initial) in [
            (Meter::Cycles, self.target_cycles, self.min_basefee_cycle, self.initial_basefee_cycle),
            (Meter::Cells, self.target_cells, self.min_basefee_cell, self.initial_basefee_cell),
        ] {
            if target == 0 {
                return Err(FeeParamsError::ZeroTarget(meter));
            }
            if min == 0 {
                return Err(FeeParamsError::ZeroMinBasefee(meter));
            }
            if initial < min {
                return Err(FeeParamsError::InitialBelowMin(meter));
            }
        }
        Ok(())
    }

    /// The chain parameters a genesis sets through its fee parameters (and not by name).
    pub const CHAIN_PARAMS: [&'static str; 4] =
        ["target_cycles", "target_cells", "min_basefee_cycle", "min_basefee_cell"];

    /// The chain parameters a genesis with these fee parameters starts from: the defaults, with
    /// this genesis's targets and basefee floors ([`CHAIN_PARAMS`](Self::CHAIN_PARAMS)).
    pub fn genesis_chain_params(&self) -> ChainParams {
        ChainParams {
            target_cycles: self.target_cycles,
            target_cells: self.target_cells,
            min_basefee_cycle: self.min_basefee_cycle,
            min_basefee_cell: self.min_basefee_cell,
            ..ChainParams::default()
        }
    }

    /// The fee parameters in force under the live chain parameters `params`: their targets and
    /// floors, this genesis's initial basefees (which only block 1 uses).
    pub fn governed(&self, params: &ChainParams) -> FeeParams {
        FeeParams {
            target_cycles: params.target_cycles,
            target_cells: params.target_cells,
            min_basefee_cycle: params.min_basefee_cycle,
            min_basefee_cell: params.min_basefee_cell,
            ..*self
        }
    }

    /// Most cycles one block may use: [`BLOCK_LIMIT_TARGET_MULTIPLE`] × the target.
    pub fn block_limit_cycles(&self) -> u64 {
        self.target_cycles.saturating_mul(BLOCK_LIMIT_TARGET_MULTIPLE)
    }

    /// Most cells one block may use: [`BLOCK_LIMIT_TARGET_MULTIPLE`] × the target.
    pub fn block_limit_cells(&self) -> u64 {
        self.target_cells.saturating_mul(BLOCK_LIMIT_TARGET_MULTIPLE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genesis_defaults_are_valid_and_limits_are_twice_the_target() {
        let params = FeeParams::default();
        assert_eq!(params.validate(), Ok(()));
        assert_eq!(params.block_limit_cycles(), 20_000_000);
        assert_eq!(params.block_limit_cells(), 1_000_000);
    }

    #[test]
    fn rejects_zero_targets_and_floors() {
        let base = FeeParams::default();
        let cases = [
            (FeeParams { target_cycles: 0, ..base }, FeeParamsError::ZeroTarget(Meter::Cycles)),
            (FeeParams { target_cells: 0, ..base }, FeeParamsError::ZeroTarget(Meter::Cells)),
            (FeeParams { min_basefee_cycle: 0, ..base }, FeeParamsError::ZeroMinBasefee(Meter::Cycles)),
            (FeeParams { min_basefee_cell: 0, ..base }, FeeParamsError::ZeroMinBasefee(Meter::Cells)),
            (
                FeeParams { min_basefee_cycle: 5, initial_basefee_cycle: 4, ..base },
                FeeParamsError::InitialBelowMin(Meter::Cycles),
            ),
            (
                FeeParams { min_basefee_cell: 5, initial_basefee_cell: 4, ..base },
                FeeParamsError::InitialBelowMin(Meter::Cells),
            ),
        ];
        for (params, error) in cases {
            assert_eq!(params.validate(), Err(error));
        }
    }

    #[test]
    fn limits_saturate_instead_of_overflowing() {
        let params = FeeParams { target_cycles: u64::MAX, target_cells: u64::MAX, ..Default::default() };
        assert_eq!(params.block_limit_cycles(), u64::MAX);
        assert_eq!(params.block_limit_cells(), u64::MAX);
    }

    #[test]
    fn deserializes_strictly() {
        let json = r#"{"target_cycles":1,"target_cells":1,"min_basefee_cycle":1,"min_basefee_cell":1,
            "initial_basefee_cycle":1,"initial_basefee_cell":1,"extra":0}"#;
        assert!(serde_json::from_str::<FeeParams>(json).is_err());
    }
}

//! The genesis state: initial balances, the initial basefees and the chain parameters.

use crate::{FeeParams, FeeParamsError, Writes};
use drover_state::{
    Account, Basefees,
    governance::params_state_key,
    keys::{account_key, basefees_key},
};
use drover_types::{Address, chain_params::ChainParams};
use std::collections::BTreeMap;

/// Why a genesis cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenesisError {
    /// The fee parameters are unusable.
    #[error(transparent)]
    Params(#[from] FeeParamsError),
    /// The address appears twice among the allocations.
    #[error("address {0} is allocated more than once")]
    DuplicateAllocation(Address),
    /// The allocations sum to more than `u128::MAX` base units.
    #[error("the allocations sum to more than u128::MAX base units")]
    SupplyOverflow,
    /// A chain parameter the genesis sets is unknown, out of its field's range, or a fee
    /// parameter (set under `fees`).
    #[error("{0}")]
    ChainParam(String),
}

/// The chain parameters a genesis starts with: the defaults, `fees`'s targets and floors, and
/// the genesis's other `values` by name.
pub fn genesis_params(fees: &FeeParams, values: &BTreeMap<String, u128>) -> Result<ChainParams, GenesisError> {
    if let Some(name) = values.keys().find(|name| FeeParams::CHAIN_PARAMS.contains(&name.as_str())) {
        return Err(GenesisError::ChainParam(format!("{name} is a fee parameter: set it under `fees`")));
    }
    fees.genesis_chain_params()
        .with_genesis_values(values.iter().map(|(name, value)| (name.as_str(), *value)))
        .map_err(|e| GenesisError::ChainParam(e.to_string()))
}

/// Key-value writes of the genesis state, sorted by key: the initial basefees, the chain
/// parameters `chain_params` ([`genesis_params`], governed from then on) and one account
/// (nonce 0) per non-zero allocation. The node applies them before block 1's transactions.
///
/// The total supply must fit in u128: every later credit moves existing units, so no balance can
/// overflow afterwards. Zero allocations create nothing, since an empty account is not stored.
pub fn genesis_writes(
    allocations: &[(Address, u128)],
    params: &FeeParams,
    chain_params: &ChainParams,
) -> Result<Writes, GenesisError> {
    params.validate()?;
    // One source for the fee parameters: `chain_params` comes from `genesis_params(params, ..)`.
    let from_fees = params.genesis_chain_params();
    if let Some(name) = FeeParams::CHAIN_PARAMS.iter().find(|name| chain_params.get(name) != from_fees.get(name)) {
        return Err(GenesisError::ChainParam(format!("{name} differs from the fee parameters' (genesis_params)")));
    }
    let mut balances = BTreeMap::new();
    let mut supply = 0u128;
    for &(address, balance) in allocations {
        if balances.insert(address, balance).is_some() {
            return Err(GenesisError::DuplicateAllocation(address));
        }
        supply = supply.checked_add(balance).ok_or(GenesisError::SupplyOverflow)?;
    }
    let basefees = Basefees { cycle: params.initial_basefee_cycle, cell: params.initial_basefee_cell };
    let mut writes = vec![(basefees_key(), Some(basefees.encode())), (params_state_key(), Some(chain_params.encode()))];
    writes.extend(
        balances
            .into_iter()
            .filter(|&(_, balance)| balance > 0)
            .map(|(address, balance)| (account_key(&address), Some(Account { nonce: 0, balance }.encode()))),
    );
    writes.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Meter;

    #[test]
    fn writes_basefees_then_accounts_in_key_order() {
        let allocations = [(Address([9; 20]), 5), (Address([1; 20]), 7), (Address([4; 20]), 0)];
        let writes =
            genesis_writes(&allocations, &FeeParams::default(), &FeeParams::default().genesis_chain_params()).unwrap();
        let mut expected = vec![
            (basefees_key(), Some(Basefees { cycle: 1, cell: 1 }.encode())),
            (params_state_key(), Some(FeeParams::default().genesis_chain_params().encode())),
            (account_key(&Address([1; 20])), Some(Account { nonce: 0, balance: 7 }.encode())),
            (account_key(&Address([9; 20])), Some(Account { nonce: 0, balance: 5 }.encode())),
        ];
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(writes, expected);
    }

    #[test]
    fn refuses_duplicates_overflow_and_bad_params() {
        let params = FeeParams::default();
        let chain = params.genesis_chain_params();
        let twice = [(Address([1; 20]), 1), (Address([1; 20]), 2)];
        assert_eq!(genesis_writes(&twice, &params, &chain), Err(GenesisError::DuplicateAllocation(Address([1; 20]))));
        let too_much = [(Address([1; 20]), u128::MAX), (Address([2; 20]), 1)];
        assert_eq!(genesis_writes(&too_much, &params, &chain), Err(GenesisError::SupplyOverflow));
        let all = [(Address([1; 20]), u128::MAX)];
        assert!(genesis_writes(&all, &params, &chain).is_ok());
        let other_target = ChainParams { target_cycles: 7, ..chain };
        assert!(matches!(genesis_writes(&[], &params, &other_target), Err(GenesisError::ChainParam(_))));
        let bad = FeeParams { target_cells: 0, ..params };
        assert_eq!(
            genesis_writes(&[], &bad, &chain),
            Err(GenesisError::Params(FeeParamsError::ZeroTarget(Meter::Cells)))
        );
    }

    #[test]
    fn a_genesis_sets_any_chain_parameter_but_the_fee_ones_by_name() {
        let fees = FeeParams::default();
        let values = BTreeMap::from([("voting_period_blocks".to_owned(), 3), ("max_code_bytes".to_owned(), 4_096)]);
        let params = genesis_params(&fees, &values).unwrap();
        assert_eq!((params.voting_period_blocks, params.max_code_bytes), (3, 4_096), "outside the vote bounds too");
        assert_eq!(params.target_cycles, fees.target_cycles);
        let fee = BTreeMap::from([("target_cycles".to_owned(), 5)]);
        assert!(matches!(genesis_params(&fees, &fee), Err(GenesisError::ChainParam(_))));
        let unknown = BTreeMap::from([("no_such".to_owned(), 5)]);
        assert!(matches!(genesis_params(&fees, &unknown), Err(GenesisError::ChainParam(_))));
        let too_big = BTreeMap::from([("reputation_gain".to_owned(), 300)]);
        assert!(matches!(genesis_params(&fees, &too_big), Err(GenesisError::ChainParam(_))));
    }
}

//! The genesis state: initial balances, the initial basefees and the chain parameters.

use crate::{FeeParams, FeeParamsError, Writes};
use drover_state::{
    Account, Basefees,
    governance::params_state_key,
    keys::{account_key, basefees_key},
};
use drover_types::Address;
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
}

/// Key-value writes of the genesis state, sorted by key: the initial basefees, the chain
/// parameters (governed from then on) and one account (nonce 0) per non-zero allocation. The node applies them before block 1's transactions.
///
/// The total supply must fit in u128: every later credit moves existing units, so no balance can
/// overflow afterwards. Zero allocations create nothing, since an empty account is not stored.
pub fn genesis_writes(allocations: &[(Address, u128)], params: &FeeParams) -> Result<Writes, GenesisError> {
    params.validate()?;
    let mut balances = BTreeMap::new();
    let mut supply = 0u128;
    for &(address, balance) in allocations {
        if balances.insert(address, balance).is_some() {
            return Err(GenesisError::DuplicateAllocation(address));
        }
        supply = supply.checked_add(balance).ok_or(GenesisError::SupplyOverflow)?;
    }
    let basefees = Basefees { cycle: params.initial_basefee_cycle, cell: params.initial_basefee_cell };
    let mut writes = vec![
        (basefees_key(), Some(basefees.encode())),
        (params_state_key(), Some(params.genesis_chain_params().encode())),
    ];
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
        let writes = genesis_writes(&allocations, &FeeParams::default()).unwrap();
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
        let twice = [(Address([1; 20]), 1), (Address([1; 20]), 2)];
        assert_eq!(genesis_writes(&twice, &params), Err(GenesisError::DuplicateAllocation(Address([1; 20]))));
        let too_much = [(Address([1; 20]), u128::MAX), (Address([2; 20]), 1)];
        assert_eq!(genesis_writes(&too_much, &params), Err(GenesisError::SupplyOverflow));
        let all = [(Address([1; 20]), u128::MAX)];
        assert!(genesis_writes(&all, &params).is_ok());
        let bad = FeeParams { target_cells: 0, ..params };
        assert_eq!(genesis_writes(&[], &bad), Err(GenesisError::Params(FeeParamsError::ZeroTarget(Meter::Cells))));
    }
}

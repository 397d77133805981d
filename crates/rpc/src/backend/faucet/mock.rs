//! The faucet's mock: enabled (10 DRV, 5 requests a minute) unless a test turns it off; the
//! funding transaction's hash is the keccak of the address.

use super::{FaucetBackend, FaucetSettings};
use crate::mock::MockBackend;
use drover_types::{Address, H256, error::ApiError, keccak256};

pub(crate) struct FaucetMock {
    /// `None`: the faucet is disabled.
    pub faucet: Option<FaucetSettings>,
}

impl Default for FaucetMock {
    fn default() -> Self {
        Self { faucet: Some(FaucetSettings { drip_amount: 10_000_000_000, requests_per_minute: 5 }) }
    }
}

impl FaucetBackend for MockBackend {
    fn faucet(&self) -> Option<FaucetSettings> {
        self.read(|data: &FaucetMock| data.faucet)
    }

    async fn fund(&self, address: Address) -> Result<H256, ApiError> {
        Ok(keccak256(&address.0))
    }
}

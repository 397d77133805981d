//! The devnet faucet: drips are ordinary transfers signed with the faucet's key.

use super::handle::NodeHandle;
use crate::error::NodeError;
use drover_rpc::backend::{FaucetBackend, FaucetSettings, TransactionBackend};
use drover_types::{Address, ErrorCode, H256, Transaction, error::ApiError};

/// Cycles limit the faucet puts on its transfers (exactly a transfer's cost).
const FAUCET_CYCLES_LIMIT: u64 = drover_types::params::TRANSFER_CYCLES;

impl FaucetBackend for NodeHandle {
    fn faucet(&self) -> Option<FaucetSettings> {
        self.0
            .faucet
            .as_ref()
            .map(|f| FaucetSettings { drip_amount: f.drip_amount, requests_per_minute: f.requests_per_minute })
    }

    /// Sends `address` the faucet's drip: an ordinary transfer from the faucet account, one at a
    /// time so concurrent requests get consecutive nonces.
    async fn fund(&self, address: Address) -> Result<H256, ApiError> {
        let faucet = self
            .0
            .faucet
            .as_ref()
            .ok_or_else(|| ApiError::new(ErrorCode::FaucetDisabled, "the faucet is not enabled"))?;
        let _serial = self.0.faucet_lock.lock().await;
        let from = faucet.key.address();
        let account = self.read_account(&from).await?.unwrap_or_default();
        let nonce = self.0.chain.mempool.next_nonce(&from, account.nonce);
        let fees = self.0.chain.tip().next_basefees;
        // Pay twice the current basefee so the drip survives a few basefee increases.
        let max_fee_per_cycle = fees.cycle.saturating_mul(2).max(1);
        let tx = Transaction {
            chain_id: self.0.chain_info.chain_id,
            nonce,
            to: Some(address),
            value: faucet.drip_amount,
            cycles_limit: FAUCET_CYCLES_LIMIT,
            cells_limit: 0,
            max_fee_per_cycle,
            max_fee_per_cell: fees.cell.max(1),
            tip_per_cycle: 0,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
        .sign(&faucet.key);
        let verified = tx.verify().map_err(NodeError::unfinished)?;
        let hash = verified.hash;
        let mut results = self.submit(vec![verified]).await;
        match results.pop() {
            Some(Ok(())) => Ok(hash),
            Some(Err(e)) => Err(drover_rpc::error::admission_error(e)),
            None => Err(NodeError::unfinished("admission returned no result").into()),
        }
    }
}

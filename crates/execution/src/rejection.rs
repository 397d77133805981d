//! Why a transaction cannot be executed now: the pre-check failures shared by the executor (as a
//! `Failed` receipt), the proposer's filter and mempool admission (as an API error).

use crate::Meter;
use drover_types::{ErrorCode, ExecError, exec_error::ExecCode};

/// The rule a transaction broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectReason {
    /// The transaction is signed for another chain.
    WrongChainId,
    /// The nonce was already used.
    NonceTooLow,
    /// The nonce is ahead of the sender's next nonce (an earlier one is missing).
    NonceTooHigh,
    /// The sender's nonce reached `u64::MAX`: it can send nothing more.
    NonceExhausted,
    /// A max fee is below the block's basefee.
    BasefeeTooLow,
    /// A tip is above its max fee.
    TipAboveMaxFee,
    /// The balance does not cover the value.
    InsufficientBalanceForValue,
    /// The balance covers the value but not the value plus the maximum fees.
    InsufficientBalanceForFees,
    /// value + cycles_limit × max_fee_per_cycle + cells_limit × max_fee_per_cell exceeds u128.
    CostOverflow,
    /// The cycles limit is below the transaction's intrinsic cycles.
    IntrinsicCycles,
    /// The cells limit is below the transaction's intrinsic cells.
    IntrinsicCells,
    /// The payload does not have the form its destination calls for, or the destination holds
    /// no actor for a message.
    InvalidPayload,
    /// Crediting a balance would exceed u128 (impossible while the supply fits u128).
    CreditOverflow,
    /// The block has no room left on this meter (only from the proposer's filter).
    BlockFull(Meter),
}

impl RejectReason {
    /// The execution error code a `Failed` receipt carries for this reason.
    pub fn exec_code(self) -> ExecCode {
        match self {
            RejectReason::WrongChainId => ExecCode::ChainId,
            RejectReason::NonceTooLow | RejectReason::NonceTooHigh | RejectReason::NonceExhausted => ExecCode::Nonce,
            RejectReason::BasefeeTooLow => ExecCode::BasefeeTooLow,
            RejectReason::TipAboveMaxFee | RejectReason::CostOverflow => ExecCode::Fees,
            RejectReason::InsufficientBalanceForValue => ExecCode::BalanceForValue,
            RejectReason::InsufficientBalanceForFees => ExecCode::BalanceForFees,
            RejectReason::IntrinsicCycles | RejectReason::BlockFull(Meter::Cycles) => ExecCode::OutOfCycles,
            RejectReason::IntrinsicCells | RejectReason::BlockFull(Meter::Cells) => ExecCode::OutOfCells,
            RejectReason::InvalidPayload => ExecCode::Payload,
            RejectReason::CreditOverflow => ExecCode::Internal,
        }
    }

    /// The API error code the mempool answers a submission with for this reason.
    pub fn api_code(self) -> ErrorCode {
        match self {
            RejectReason::WrongChainId => ErrorCode::WrongChainId,
            RejectReason::NonceTooLow | RejectReason::NonceExhausted => ErrorCode::NonceTooLow,
            RejectReason::NonceTooHigh => ErrorCode::NonceTooHigh,
            RejectReason::BasefeeTooLow => ErrorCode::BasefeeTooLow,
            RejectReason::TipAboveMaxFee | RejectReason::CostOverflow => ErrorCode::InvalidFees,
            RejectReason::InsufficientBalanceForValue | RejectReason::InsufficientBalanceForFees => {
                ErrorCode::InsufficientBalance
            }
            RejectReason::IntrinsicCycles | RejectReason::IntrinsicCells => ErrorCode::OutOfGas,
            RejectReason::InvalidPayload => ErrorCode::InvalidPayload,
            RejectReason::CreditOverflow => ErrorCode::Internal,
            RejectReason::BlockFull(_) => ErrorCode::AdmissionBusy,
        }
    }

    /// Whether the transaction can never become valid, whatever happens to the state (so a
    /// mempool may evict it). The others may pass later: a missing earlier nonce arrives, the
    /// basefee falls, the sender is funded, a later block has room.
    pub fn is_permanent(self) -> bool {
        !matches!(
            self,
            RejectReason::NonceTooHigh
                | RejectReason::BasefeeTooLow
                | RejectReason::InsufficientBalanceForValue
                | RejectReason::InsufficientBalanceForFees
                | RejectReason::BlockFull(_)
        )
    }
}

/// A transaction refused by a pre-check, with what happened in this instance.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    /// Which pre-check failed; decides the E-code and the API code.
    pub reason: RejectReason,
    /// What happened in this instance.
    pub message: String,
}

impl Rejection {
    /// A rejection for `reason` with this instance's `message`.
    pub fn new(reason: RejectReason, message: impl Into<String>) -> Self {
        Self { reason, message: message.into() }
    }

    /// See [`RejectReason::exec_code`].
    pub fn exec_code(&self) -> ExecCode {
        self.reason.exec_code()
    }

    /// See [`RejectReason::api_code`].
    pub fn api_code(&self) -> ErrorCode {
        self.reason.api_code()
    }

    /// The error a `Failed` receipt carries.
    pub fn to_exec_error(&self) -> ExecError {
        ExecError { code: self.exec_code(), message: self.message.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mempool_codes_follow_the_spec() {
        assert_eq!(RejectReason::NonceTooLow.api_code().code(), 2003);
        assert_eq!(RejectReason::NonceTooHigh.api_code().code(), 2004);
        assert_eq!(RejectReason::IntrinsicCycles.api_code().code(), 2005);
        assert_eq!(RejectReason::InsufficientBalanceForFees.api_code().code(), 2006);
        assert_eq!(RejectReason::BasefeeTooLow.api_code().code(), 2011);
        assert_eq!(RejectReason::InvalidPayload.api_code().code(), 2012);
    }

    #[test]
    fn receipt_codes_follow_the_design() {
        assert_eq!(RejectReason::NonceTooHigh.exec_code(), ExecCode::Nonce);
        assert_eq!(RejectReason::InsufficientBalanceForValue.exec_code(), ExecCode::BalanceForValue);
        assert_eq!(RejectReason::InsufficientBalanceForFees.exec_code(), ExecCode::BalanceForFees);
        assert_eq!(RejectReason::IntrinsicCycles.exec_code(), ExecCode::OutOfCycles);
        assert_eq!(RejectReason::BasefeeTooLow.exec_code(), ExecCode::BasefeeTooLow);
        assert_eq!(RejectReason::InvalidPayload.exec_code(), ExecCode::Payload);
        assert_eq!(RejectReason::WrongChainId.exec_code(), ExecCode::ChainId);
        assert_eq!(RejectReason::TipAboveMaxFee.exec_code(), ExecCode::Fees);
    }

    #[test]
    fn only_state_dependent_reasons_are_transient() {
        assert!(!RejectReason::NonceTooHigh.is_permanent());
        assert!(!RejectReason::BlockFull(Meter::Cells).is_permanent());
        assert!(!RejectReason::InsufficientBalanceForValue.is_permanent());
        assert!(RejectReason::NonceTooLow.is_permanent());
        assert!(RejectReason::WrongChainId.is_permanent());
        assert!(RejectReason::CostOverflow.is_permanent());
    }

    #[test]
    fn exec_error_carries_code_and_message() {
        let rejection = Rejection::new(RejectReason::NonceTooHigh, "nonce 5, expected 3");
        assert_eq!(rejection.to_string(), "nonce 5, expected 3");
        assert_eq!(
            rejection.to_exec_error(),
            ExecError { code: ExecCode::Nonce, message: "nonce 5, expected 3".into() }
        );
    }
}

//! Execution error codes (E-codes) carried in receipts of failed or reverted transactions.
//!
//! Ranges: E1000–E1099 pre-checks, E1100 static code validation, E1200 VM runtime / host calls,
//! E1300 entitlements, E1400 tokens, E1500 timers and deferred work, E1600 runners and jobs,
//! E1900 internal. A receipt carries `{code: "E1005", category, message, fix}`.

/// An execution error code.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ExecCode {
    /// E1001: signature does not recover the sender.
    Signature,
    /// E1002: nonce is not the sender's next nonce.
    Nonce,
    /// E1003: balance cannot cover the value.
    BalanceForValue,
    /// E1004: balance cannot cover the maximum fees.
    BalanceForFees,
    /// E1005: out of cycles.
    OutOfCycles,
    /// E1006: out of cells.
    OutOfCells,
    /// E1008: a max fee is below the block's basefee.
    BasefeeTooLow,
    /// E1900: internal error.
    Internal,
}
// TODO(types): as_str() ("E1005"), category(), fix(), from_str; serde of ExecError as {code, category, message, fix}.

/// An execution error as carried in a receipt.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ExecError {
    pub code: ExecCode,
    /// What happened in this instance.
    pub message: String,
}

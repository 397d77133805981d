//! What one handler invocation is given and what it yields: the call's context, the rights and
//! budgets it runs with ([`Invocation`]) and how it ended ([`Outcome`]). Plain data, shared by
//! the engine ([`crate::Vm`]), the runtime's host functions and the [`Host`](crate::Host) the
//! executor implements.

use crate::entitlements::Entitlements;
use drover_types::{
    Address,
    exec_error::{ExecCode, ExecError},
};

/// Who and when: the context of one handler execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallContext {
    /// The actor whose code runs.
    pub self_address: Address,
    /// The account or actor that sent this message (the transaction sender at depth 0).
    pub caller: Address,
    /// The transaction sender (or, for deliveries and timers, whoever the executor designates).
    pub origin: Address,
    /// Height of the block being executed.
    pub block_height: u64,
    /// Timestamp of the block being executed, Unix milliseconds.
    pub timestamp_ms: u64,
    /// Value moved to `self_address` with this message, in base units.
    pub value: u128,
    /// Synchronous call depth: 0 for the outermost handler.
    pub depth: u32,
}

/// What to run and with which rights and budgets.
#[derive(Debug, Clone)]
pub struct Invocation<'a> {
    /// Name of the exported handler to run.
    pub handler: &'a str,
    /// Input bytes the handler reads with `input_read`.
    pub payload: &'a [u8],
    /// Who and when.
    pub context: CallContext,
    /// The actor's manifest, checked by [`validate_manifest`](crate::validate_manifest) at deploy.
    pub entitlements: Entitlements,
    /// Cycles budget, including the fixed invocation price.
    pub cycles_limit: u64,
    /// Cells budget: bytes the invocation may write to state.
    pub cells_limit: u64,
    /// Any state-writing host call fails with E1206 (API 5003).
    pub read_only: bool,
    /// Cycles the host charges for loading the module before the handler runs
    /// ([`CompiledModule::load_cycles`](crate::CompiledModule::load_cycles) at its first use in a
    /// transaction, else 0), taken from `cycles_limit` with the invocation price.
    pub load_cycles: u64,
}

/// How a handler ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The handler returned normally; its effects stand.
    Success,
    /// The actor called `revert`: its effects must be discarded; the reason goes in the receipt.
    Revert {
        /// The bytes the actor passed to `revert`.
        reason: Vec<u8>,
    },
    /// The actor was stopped (trap, limit, refused host call, host error); effects discarded.
    Trap(ExecError),
}

impl Status {
    /// The E-code a receipt carries: none on success, E1201 for a revert.
    pub fn code(&self) -> Option<ExecCode> {
        match self {
            Status::Success => None,
            Status::Revert { .. } => Some(ExecCode::Reverted),
            Status::Trap(e) => Some(e.code),
        }
    }
}

/// The result of one invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// How the handler ended.
    pub status: Status,
    /// What the handler passed to `set_result` (empty unless it succeeded).
    pub result: Vec<u8>,
    /// Cycles metered, including nested calls; the whole budget when it ran out of cycles.
    pub cycles_used: u64,
    /// Cells metered, including nested calls (also when they were rolled back).
    pub cells_used: u64,
}

impl Outcome {
    /// Whether the handler succeeded.
    pub fn is_success(&self) -> bool {
        self.status == Status::Success
    }

    /// The receipt's error object, if any (a revert is E1201 with the reason as message).
    pub fn error(&self) -> Option<ExecError> {
        match &self.status {
            Status::Success => None,
            Status::Revert { reason } => {
                Some(ExecError::new(ExecCode::Reverted, String::from_utf8_lossy(reason).into_owned()))
            }
            Status::Trap(e) => Some(e.clone()),
        }
    }

    pub(crate) fn trap(code: ExecCode, message: impl Into<String>, cycles_used: u64) -> Outcome {
        Outcome { status: Status::Trap(ExecError::new(code, message)), result: Vec::new(), cycles_used, cells_used: 0 }
    }
}

//! Error types: why code is refused ([`VmError`]), why a host operation failed ([`HostError`]),
//! and how a host function stops the actor ([`Abort`], internal).
//!
//! Every error maps to one E-code of the registry in `drover_types::exec_error`, so a receipt can
//! carry it unchanged. Refusals of code happen before anything runs; failures during a run are not
//! errors of `invoke` but a [`Status::Trap`](crate::Status::Trap) in its outcome, because the
//! transaction is still included and pays for the cycles it used.

use drover_types::{
    H256,
    exec_error::{ExecCode, ExecError},
};

/// Why a module or a manifest was refused, or why the VM could not prepare a module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VmError {
    #[error("floating-point instruction or type at byte {offset}")]
    Float { offset: usize },
    #[error("import {module}.{name} refused: {reason}")]
    Import { module: String, name: String, reason: &'static str },
    #[error("module is {bytes} bytes, above the limit of {limit}")]
    CodeTooLarge { bytes: usize, limit: usize },
    #[error("memory: {0}")]
    Memory(String),
    #[error("table: {0}")]
    Table(String),
    #[error("functions: {0}")]
    Functions(String),
    #[error("{count} globals, above the limit of {limit}")]
    Globals { count: u32, limit: u32 },
    #[error("invalid WebAssembly: {0}")]
    InvalidWasm(String),
    #[error("handler convention: {0}")]
    HandlerConvention(String),
    #[error("unknown entitlement id {0:?}")]
    UnknownEntitlement(String),
    #[error("entitlement id {0:?} listed twice")]
    DuplicateEntitlement(String),
    #[error("code hash mismatch: expected {expected}, code hashes to {actual}")]
    CodeHashMismatch { expected: H256, actual: H256 },
    #[error("wasmi refused validated code: {0}")]
    Compile(String),
    #[error("code unavailable: {0}")]
    CodeUnavailable(HostError),
}

impl VmError {
    /// The E-code a receipt carries for this refusal.
    pub fn code(&self) -> ExecCode {
        match self {
            VmError::Float { .. } => ExecCode::FloatInstruction,
            VmError::Import { .. } => ExecCode::ForbiddenImport,
            VmError::CodeTooLarge { .. } => ExecCode::CodeTooLarge,
            VmError::Memory(_) => ExecCode::MemoryDeclaration,
            VmError::Table(_) => ExecCode::TableDeclaration,
            VmError::Functions(_) => ExecCode::TooManyFunctions,
            VmError::Globals { .. } => ExecCode::TooManyGlobals,
            VmError::InvalidWasm(_) => ExecCode::InvalidWasm,
            VmError::HandlerConvention(_) => ExecCode::HandlerConvention,
            VmError::UnknownEntitlement(_) | VmError::DuplicateEntitlement(_) => ExecCode::UnknownEntitlement,
            VmError::CodeHashMismatch { .. } | VmError::Compile(_) => ExecCode::Internal,
            VmError::CodeUnavailable(e) => e.code,
        }
    }

    /// The receipt form.
    pub fn to_exec_error(&self) -> ExecError {
        ExecError::new(self.code(), self.to_string())
    }
}

/// A failure reported by the [`Host`](crate::Host): the E-code is the host's choice (E1211 no
/// actor, E1212 balance, E1502 too many timers, E1900 for a storage fault, ...). The VM traps the
/// actor with it unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct HostError {
    pub code: ExecCode,
    pub message: String,
}

impl HostError {
    pub fn new(code: ExecCode, message: impl Into<String>) -> Self {
        HostError { code, message: message.into() }
    }

    /// A fault of the node rather than of the actor (E1900); the executor should treat it as
    /// fatal for the block rather than as the transaction's failure.
    pub fn internal(message: impl Into<String>) -> Self {
        HostError::new(ExecCode::Internal, message)
    }
}

impl From<HostError> for ExecError {
    fn from(e: HostError) -> Self {
        ExecError::new(e.code, e.message)
    }
}

/// How a host function stops the actor: an explicit revert or a failure with an E-code. It
/// travels through wasmi as a host error and is turned back into a [`Status`](crate::Status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Abort {
    Revert(Vec<u8>),
    Fail(ExecError),
}

impl Abort {
    pub(crate) fn fail(code: ExecCode, message: impl Into<String>) -> Self {
        Abort::Fail(ExecError::new(code, message))
    }

    pub(crate) fn out_of_cells(wanted: u64, remaining: u64) -> Self {
        Abort::fail(ExecCode::OutOfCells, format!("a write needs {wanted} cells, {remaining} remain"))
    }

    pub(crate) fn out_of_cycles(wanted: u64, remaining: u64) -> Self {
        Abort::fail(ExecCode::OutOfCycles, format!("a host call needs {wanted} cycles, {remaining} remain"))
    }

    pub(crate) fn argument(message: impl Into<String>) -> Self {
        Abort::fail(ExecCode::HostCallArgument, message)
    }
}

impl From<HostError> for Abort {
    fn from(e: HostError) -> Self {
        Abort::Fail(e.into())
    }
}

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Abort::Revert(reason) => write!(f, "reverted ({} bytes of reason)", reason.len()),
            Abort::Fail(e) => e.fmt(f),
        }
    }
}

impl wasmi::errors::HostError for Abort {}

impl From<Abort> for wasmi::Error {
    fn from(abort: Abort) -> Self {
        wasmi::Error::host(abort)
    }
}

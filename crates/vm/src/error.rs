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
    /// E1101: a floating-point instruction or type, at this byte offset of the module.
    #[error("floating-point instruction or type at byte {offset}")]
    Float {
        /// Byte offset of the instruction or type in the module.
        offset: usize,
    },
    /// E1102: an import other than a `drover` host function with its exact signature.
    #[error("import {module}.{name} refused: {reason}")]
    Import {
        /// Module name of the refused import.
        module: String,
        /// Item name of the refused import.
        name: String,
        /// Why it is refused (not in the ABI, wrong signature, not a function, ...).
        reason: &'static str,
    },
    /// E1103: the module is larger than the deploy limit.
    #[error("module is {bytes} bytes, above the limit of {limit}")]
    CodeTooLarge {
        /// Size of the module, in bytes.
        bytes: usize,
        /// The deploy limit, in bytes.
        limit: usize,
    },
    /// E1104: the memory declaration is missing, duplicated, not exported as `memory`, 64-bit,
    /// shared or too large.
    #[error("memory: {0}")]
    Memory(String),
    /// E1105: too many tables, or a table above the element limit.
    #[error("table: {0}")]
    Table(String),
    /// E1106: too many functions, or a function with too many locals.
    #[error("functions: {0}")]
    Functions(String),
    /// E1107: too many globals.
    #[error("{count} globals, above the limit of {limit}")]
    Globals {
        /// Globals the module defines.
        count: u32,
        /// The most a module may have.
        limit: u32,
    },
    /// E1108: not a valid WebAssembly module, or one using an unsupported proposal.
    #[error("invalid WebAssembly: {0}")]
    InvalidWasm(String),
    /// E1109: an export or the start section breaks the handler convention.
    #[error("handler convention: {0}")]
    HandlerConvention(String),
    /// E1302: the manifest lists an id the entitlement registry does not know.
    #[error("unknown entitlement id {0:?}")]
    UnknownEntitlement(String),
    /// E1302: the manifest lists an id twice.
    #[error("entitlement id {0:?} listed twice")]
    DuplicateEntitlement(String),
    /// E1900: the stored code does not hash to the code hash it was loaded for.
    #[error("code hash mismatch: expected {expected}, code hashes to {actual}")]
    CodeHashMismatch {
        /// The code hash the module was loaded for.
        expected: H256,
        /// keccak256 of the code actually read.
        actual: H256,
    },
    /// E1900: wasmi refused code that passed validation.
    #[error("wasmi refused validated code: {0}")]
    Compile(String),
    /// The code could not be read; the host's E-code.
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
    /// The E-code the actor is trapped with.
    pub code: ExecCode,
    /// What went wrong in this instance.
    pub message: String,
}

impl HostError {
    /// A failure with `code` and this instance's `message`.
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

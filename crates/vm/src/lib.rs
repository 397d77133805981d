//! Drover's WebAssembly actor engine, on wasmi with fuel metering (fuel = cycles).
//!
//! Life of an actor's code: [`validate`] at deploy decides, once and for all nodes alike, whether
//! a module may exist (no floats, only `drover` imports with their ABI signatures, bounded
//! size, memory, tables, functions, globals, exports); [`validate_manifest`] does the same for
//! its entitlements. At call time [`Vm::load`]/[`Vm::compile`] return the compiled module from a
//! cache keyed by code hash, and [`Vm::invoke`] runs one handler with a cycles budget, a cells
//! budget, the actor's entitlements, a read-only flag and a [`Host`] that owns state.
//!
//! Invariants:
//! - Determinism: cycles and cells depend only on code, input and host answers. No floats, eager
//!   compilation (no first-call translation fuel), fixed prices in [`meter`], fixed [`limits`].
//! - Nothing reachable from wasm panics: pointers, lengths and budgets from the actor are
//!   checked; failures become [`Status::Trap`] with an E-code (E12xx runtime, E13xx entitlement,
//!   E15xx timers, E1005/E1006 out of cycles/cells).
//! - The VM never undoes effects: a host journals them and drops those of any invocation whose
//!   status is not success (see [`host`]).
//!
//! The ABI is documented in `docs/actors.md`; [`abi::HOST_FUNCTIONS`] is its machine form.

pub mod abi;
mod cache;
pub mod entitlements;
mod error;
pub mod host;
mod invocation;
mod invoke;
pub mod limits;
pub mod meter;
#[cfg(any(test, feature = "testing"))]
pub mod mock;
mod runtime;
mod validate;

pub use cache::CompiledModule;
pub use entitlements::{ENTITLEMENT_REGISTRY, Entitlement, Entitlements, manifest_problems, validate_manifest};
pub use error::{HostError, VmError};
pub use host::{CallRequest, Host, LibraryRequest, OutgoingMessage, StorageEntry, TimerRequest};
pub use invocation::{CallContext, Invocation, Outcome, Status};
pub use invoke::Vm;
#[cfg(any(test, feature = "testing"))]
pub use mock::MockHost;
pub use validate::{CodeInfo, check_code_limit, validate, validate_deploy};

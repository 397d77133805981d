//! The native system actors, by address: which calls the executor serves itself instead of
//! handing them to the VM.
//!
//! The runner registry (`0x00…01`, [`crate::runners`]), the job dispatcher (`0x00…02`,
//! [`crate::jobs`]), secrets (`0x00…04`, [`crate::secrets`]), governance (`0x00…09`,
//! [`crate::governance`]), the storage manager and relay registry (`0x00…0a`, `0x00…0b`,
//! [`crate::storage`]), the tokens (`0x00…0c`, [`crate::tokens`]) and libraries (`0x00…0d`,
//! [`crate::libraries`]). Which addresses these are, and the form of a call to each, is
//! `drover_types::validity`'s to say (`is_native`, `check_payload`). Every other reserved
//! address `0x00…01`–`0x00…0f` holds no actor unless a family lands there: a transaction to one
//! is invalid, a `call` finds no actor (E1211).

use crate::native::NativeHost;
use crate::{governance, jobs, libraries, runners, secrets, storage, tokens};
use drover_types::{
    Address,
    governance::{GOVERNANCE_ADDRESS, GovernanceCall},
    job::{JOB_DISPATCHER_ADDRESS, JobCall},
    library::{LIBRARY_ADDRESS, LibraryCall},
    payload::Message,
    runner::{RUNNER_REGISTRY_ADDRESS, RegistryCall},
    secrets::{SECRETS_ADDRESS, SecretCall},
    storage::{RELAY_REGISTRY_ADDRESS, RelayCall, STORAGE_MANAGER_ADDRESS, StorageCall},
    token::{TOKENS_ADDRESS, TokenCall},
};
use drover_vm::{CallRequest, Outcome};

/// The state keys a transaction from `sender` to the native system actor `to` with `payload`
/// reads, for the block's prefetch (none when the payload does not decode: it fails anyway).
pub(crate) fn prefetch_keys(sender: &Address, to: &Address, payload: &[u8]) -> Vec<Vec<u8>> {
    let Ok(message) = Message::decode(payload) else { return Vec::new() };
    match *to {
        TOKENS_ADDRESS => TokenCall::decode(&message.handler, &message.payload)
            .map(|call| tokens::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        RUNNER_REGISTRY_ADDRESS => RegistryCall::decode(&message.handler, &message.payload)
            .map(|call| runners::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        JOB_DISPATCHER_ADDRESS => JobCall::decode(&message.handler, &message.payload)
            .map(|call| jobs::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        GOVERNANCE_ADDRESS => GovernanceCall::decode(&message.handler, &message.payload)
            .map(|call| governance::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        SECRETS_ADDRESS => SecretCall::decode(&message.handler, &message.payload)
            .map(|call| secrets::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        LIBRARY_ADDRESS => LibraryCall::decode(&message.handler, &message.payload)
            .map(|call| libraries::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        STORAGE_MANAGER_ADDRESS => StorageCall::decode(&message.handler, &message.payload)
            .map(|call| storage::volumes::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        RELAY_REGISTRY_ADDRESS => RelayCall::decode(&message.handler, &message.payload)
            .map(|call| storage::relays::prefetch_keys(sender, &call))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Runs `request` if its callee is a native system actor; `None` otherwise (a wasm actor).
pub(crate) fn call<H: NativeHost>(host: &mut H, request: &CallRequest) -> Option<Outcome> {
    match request.context.self_address {
        TOKENS_ADDRESS => Some(tokens::call(host, request)),
        RUNNER_REGISTRY_ADDRESS => Some(runners::call(host, request)),
        JOB_DISPATCHER_ADDRESS => Some(jobs::call(host, request)),
        GOVERNANCE_ADDRESS => Some(governance::call(host, request)),
        SECRETS_ADDRESS => Some(secrets::call(host, request)),
        LIBRARY_ADDRESS => Some(libraries::call(host, request)),
        STORAGE_MANAGER_ADDRESS => Some(storage::volumes::call(host, request)),
        RELAY_REGISTRY_ADDRESS => Some(storage::relays::call(host, request)),
        _ => None,
    }
}

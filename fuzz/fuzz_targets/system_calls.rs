//! System-actor calls: the argument-map decoder (`Args`, nested maps and text arrays included)
//! and the token, runner-registry, relay-registry and storage-manager call decoders must never panic or allocate beyond the
//! input, and a call that decodes re-encodes to exactly its bytes (one encoding per call).
#![no_main]

use drover_types::{
    args::Args,
    runner::RegistryCall,
    storage::{RelayCall, StorageCall},
    token::TokenCall,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    let Some((&selector, payload)) = data.split_first() else { return };
    if let Ok(args) = Args::decode(payload) {
        // Every typed view of every key is a refusal or a value, never a panic.
        for key in ["token", "to", "amount", "name", "job_types", "rate_card", "capabilities", "paused"] {
            let _ = (args.address(key), args.u128(key), args.text(key), args.bool(key), args.texts(key));
            if let Ok(nested) = args.map(key) {
                let _ = (nested.u128("price_per_job"), nested.texts("job_types"), nested.uint("max_concurrent_jobs"));
            }
        }
    }
    // Whatever decodes as one of a system actor's calls re-encodes to exactly its bytes.
    macro_rules! round_trips {
        ($($call:ty),*) => {$(
            let handlers = <$call>::HANDLERS;
            let handler = handlers[usize::from(selector) % handlers.len()];
            if let Ok(call) = <$call>::decode(handler, payload) {
                assert_eq!(call.encode_args(), payload, "{handler}");
            }
        )*};
    }
    round_trips!(TokenCall, RegistryCall, RelayCall, StorageCall);
});

//! System-actor calls: the argument-map decoder (`Args`, nested maps and text arrays included)
//! and the call decoder of every system actor on the registry's list
//! (`drover_types::system_actors`) must never panic or allocate beyond the input, and a call
//! that decodes re-encodes to exactly its bytes (one encoding per call).
#![no_main]

use drover_types::{
    args::Args,
    system_actors::{self, SystemActorVisitor, Visit},
    system_call::SystemCall,
};
use libfuzzer_sys::fuzz_target;

/// Decodes the payload as a call of one handler of each actor (chosen by the selector) and
/// checks that what decodes re-encodes to the same bytes.
struct RoundTrip<'a> {
    selector: u8,
    payload: &'a [u8],
}

impl SystemActorVisitor for RoundTrip<'_> {
    type Output = ();
}

impl<C: SystemCall> Visit<C> for RoundTrip<'_> {
    fn visit(&mut self) {
        let handler = C::HANDLERS[usize::from(self.selector) % C::HANDLERS.len()];
        if let Ok(call) = C::decode(handler, self.payload) {
            assert_eq!(call.handler(), handler, "{}", C::NAME);
            assert_eq!(call.encode_args(), self.payload, "{} {handler}", C::NAME);
        }
    }
}

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
    system_actors::visit_all(&mut RoundTrip { selector, payload });
});

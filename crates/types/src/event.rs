//! Events emitted by executed transactions and actor handlers: an emitter address, a topic
//! (UTF-8 text) and opaque data.

use crate::Address;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Event {
    /// Who emitted it (an actor, or the system for native events such as transfers).
    pub address: Address,
    pub topic: String,
    pub data: Vec<u8>,
}
// TODO(types): canonical CBOR encode/decode ([address, topic, data]) and serde (data as base64).

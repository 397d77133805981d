//! Drover's state schema: the keys under which every consensus-relevant record is stored and the
//! typed records themselves.
//!
//! Chain state is one authenticated key-value database (QMDB) with byte-string keys and values.
//! This crate fixes what those bytes mean and nothing else: it does not depend on the database,
//! so the executor can run over any snapshot of plain bytes and the node decides how to read and
//! write them.
//!
//! # Keys
//!
//! Every key starts with one prefix byte naming its family ([`keys`]): chain metadata `0x00`,
//! accounts `0x01`, then reserved prefixes for actors, storage, mailbox, timers, tokens, runners,
//! jobs, governance, storage relays, secrets, libraries and upgrade history. The database is
//! ordered, so one family (or one actor's records, whose keys put the address right after the
//! prefix) is a contiguous range that a prefix scan or a range proof covers exactly.
//!
//! # Records
//!
//! Values are canonical CBOR (RFC 8949 §4.2.1, tag 2 only for integers above 2^64-1), so a record
//! has exactly one encoding and the state root does not depend on who wrote it. Records are
//! written and read with the same `drover_types::cbor` rules as transactions, and decoding is
//! strict: bytes that are not the canonical encoding of the expected record are a
//! [`RecordError`], never a best-effort value.
//!
//! - [`Account`] `[nonce, balance]` at `0x01 ‖ address`. An absent key is an account that does not
//!   exist (the API answers 404); an account with nonce 0 and balance 0 is never stored.
//! - [`Basefees`] `[cycle, cell]` at `0x00 ‖ "basefees"`: the basefees in force for the next block
//!   (the type and its encoding are `drover-types`', shared with the pool and the API).
//! - Actors ([`actor`]): [`ActorRecord`] and the code at `0x02`, storage at `0x03`, the upgrade
//!   history ([`UpgradeRecord`]) at `0x0d`.
//! - Mailbox ([`mailbox`]) at `0x04` and timers ([`timer`]) at `0x05`, laid out so that the
//!   executor finds the next messages and the due timers by point reads, without range reads.
//! - The system actors' records (`drover_types::system_actors` lists the actors): each family's in
//!   the storage of its actor's address, so the storage proofs cover them: the runner registry
//!   ([`runner`]), jobs ([`job`]), secrets ([`secrets`]), governance ([`governance`]), the storage
//!   manager and relay registry ([`storage`]), tokens ([`token`]) and libraries ([`library`]).
//! - Index markers ([`MARKER`]) whose key is the information, for listing an actor's pending
//!   messages with a prefix scan.
//! - Listings ([`listing`]): an owner's items in numbered slots, so that a page of a holder's
//!   tokens, a delegator's delegations, an owner's volumes, secrets, libraries or timers, or the
//!   relays taking writes or listed publicly, is point lookups at any offset.

mod account;
pub mod actor;
mod error;
pub mod governance;
pub mod job;
pub mod keys;
pub mod library;
pub mod listing;
pub mod mailbox;
pub mod runner;
pub mod secrets;
pub mod storage;
pub mod timer;
pub mod token;

pub use account::Account;
pub use actor::{ActorRecord, UpgradeRecord};
// Defined with the protocol types because the pool and the API use it too; its encoding is the
// record's.
pub use drover_types::Basefees;
pub use error::RecordError;
pub use mailbox::{MailQueue, MailboxUsage, MessageRecord};
pub use timer::{TimerCursor, TimerRecord};

/// The value of an index marker: CBOR `null` (the key is the information).
pub const MARKER: &[u8] = &[drover_types::cbor::NULL];

/// Canonical CBOR of a count record (timers per height and per owner, an actor's storage
/// entries): a bare unsigned integer.
pub fn encode_count(count: u64) -> Vec<u8> {
    let mut w = drover_types::cbor::Writer::with_capacity(9);
    w.uint(count);
    w.into_inner()
}

/// Canonical CBOR of an address record (`bytes(20)`: a slot of a list of tokens or runners).
pub fn encode_address(address: &drover_types::Address) -> Vec<u8> {
    let mut w = drover_types::cbor::Writer::with_capacity(21);
    w.bytes(&address.0);
    w.into_inner()
}

/// Strict decode of an address record.
pub fn decode_address(bytes: &[u8]) -> Result<drover_types::Address, RecordError> {
    Ok(drover_types::cbor::decode_strict(bytes, |d| Ok(drover_types::Address(drover_types::cbor::decode_fixed(d)?)))?)
}

/// Strict decode of a count record.
pub fn decode_count(bytes: &[u8]) -> Result<u64, RecordError> {
    Ok(drover_types::cbor::decode_strict(bytes, |d| Ok(d.u64()?))?)
}

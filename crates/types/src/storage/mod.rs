//! The storage family on chain: the relay registry at [`RELAY_REGISTRY_ADDRESS`] and the
//! storage manager at [`STORAGE_MANAGER_ADDRESS`], their calls, rules and rent arithmetic; how a
//! wallet authenticates to the family's owner routes and to relays is [`auth`]. (The API spec
//! calls the family RAS: its routes stay under `/ras/...` and its headers `X-DRFS-*`.)
//!
//! A **relay** registers with a stake (the call's value, at least the `min_relay_stake` chain
//! parameter), a public endpoint, a capacity, a price per byte-block and its roles (takes writes,
//! serves reads, listed publicly). It heartbeats like a runner (healthy within
//! `heartbeat_gap_blocks`) and deregisters into an unbonding of `unbonding_blocks`, once it
//! serves no volume.
//!
//! A **volume** is an owner's named container of objects held by one relay:
//! `volume_id = keccak256(owner ‖ name)`. `create` costs the `volume_creation_fee` (burned); the
//! rest of the call's value is the volume's **deposit**, from which rent is paid to the relay:
//! `billed bytes × price_per_byte_block` per block, at the relay's price when the volume was
//! created. The relay commits the volume's manifest root and size; what the rent is charged on
//! is the owner's to bound:
//!
//! - **The owner caps it.** `max_size_bytes`, set at `create` and changed only by the owner
//!   (`resize`), caps the billed bytes: a relay that commits more is paid for the cap, never
//!   more. The relay alone reports the size, so without the cap it could commit any size and
//!   take a whole deposit at the next settlement.
//! - **Growth waits for the next window.** Rent windows are [`RENT_WINDOW_BLOCKS`] long, aligned
//!   on multiples of it. Billed bytes that grow (a commit, a raised cap) are charged from the
//!   first block of the next window ([`Growth`]), so the owner sees a commit before paying for
//!   it and can lower the cap meanwhile; a shrink is charged at once.
//!
//! Rent is settled lazily (whenever the volume is touched, never by a per-block walk): only
//! whole paid blocks advance `settled_height`, so a deposit topped up after running out pays
//! the arrears first. The volume's state at any height follows from its record
//! ([`Rent::status_at`]): `active` while paid, `grace` for `volume_grace_blocks` after its
//! deposit ran out, `deleted` for `volume_grace_blocks` after its owner deleted it (undeletable
//! meanwhile) or its relay dropped it, then `purged`: gone, its relay free to drop the bytes and
//! anyone may `reap` it (the record is removed and what is left of the deposit goes back to the
//! owner).
//!
//! **A relay can always leave.** A volume whose rent is zero (nothing committed, or a relay that
//! charges nothing) never runs out of deposit, and anyone can create one for the creation fee;
//! a relay's `deregister` waits until no volume names it. So the relay may `drop` any volume it
//! holds: its rent stops, the owner has `volume_grace_blocks` to copy the objects out (the relay
//! still serves reads), then it is purged and reaped like any other.

pub mod auth;

use crate::args::{Args, ArgsBuilder, ArgsError};
use crate::params::{LISTING_CELLS, LISTING_CYCLES};
use crate::system_call::{SystemCall, SystemCallError};
use crate::{Address, H256, keccak256};

/// The storage manager system actor (volumes).
pub const STORAGE_MANAGER_ADDRESS: Address = Address::system(0x0a);
/// The relay registry system actor.
pub const RELAY_REGISTRY_ADDRESS: Address = Address::system(0x0b);

/// Genesis default of the least stake a relay registers with, in base units (1 DRV).
pub const MIN_RELAY_STAKE: u128 = crate::params::BASE_UNITS_PER_DRV;
/// Genesis default of the fee a volume's creation burns, in base units (0.01 DRV).
pub const VOLUME_CREATION_FEE: u128 = crate::params::BASE_UNITS_PER_DRV / 100;
/// Genesis default of the blocks a volume stays recoverable after its deposit ran out or its
/// owner deleted it.
pub const VOLUME_GRACE_BLOCKS: u64 = 100;

/// Longest relay endpoint, in bytes (an `http://` or `https://` URL).
pub const MAX_ENDPOINT_BYTES: usize = 256;
/// Longest volume name, in bytes of `a`–`z`, `0`–`9`, `.`, `_`, `-`.
pub const MAX_VOLUME_NAME_BYTES: usize = 64;
/// Largest capacity a relay declares, in bytes (1 PiB).
pub const MAX_RELAY_CAPACITY_BYTES: u64 = 1 << 50;
/// Largest `max_size_bytes` an owner sets on a volume, in bytes (a relay's largest capacity).
pub const MAX_VOLUME_SIZE_BYTES: u64 = MAX_RELAY_CAPACITY_BYTES;
/// Length of a rent window, in blocks: billed bytes that grow are charged from the first block
/// of the window after the one they grew in (windows start at multiples of it).
pub const RENT_WINDOW_BLOCKS: u64 = 100;

/// Cycles of a relay `register` (the record and the listing entry).
pub const RELAY_REGISTER_CYCLES: u64 = 20_000;
/// Cycles of any other relay-registry call.
pub const RELAY_CHANGE_CYCLES: u64 = 5_000;
/// Cells of a relay's record besides its endpoint.
pub const RELAY_RECORD_CELLS: u64 = 192;
/// Cycles of a volume call (settling its rent, one record, the totals).
pub const VOLUME_CALL_CYCLES: u64 = 10_000;
/// Cells of a volume's record and listing entry besides its name.
pub const VOLUME_RECORD_CELLS: u64 = 256;
/// Cells of a revoked-session marker.
pub const REVOCATION_CELLS: u64 = 96;

/// A relay's declared service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelaySettings {
    /// Where clients reach it: `http://` or `https://`, at most [`MAX_ENDPOINT_BYTES`].
    pub endpoint: String,
    /// Bytes it offers to hold over all its volumes.
    pub capacity_bytes: u64,
    /// Rent per byte per block, base units.
    pub price_per_byte_block: u128,
    /// Whether it takes new volumes and writes.
    pub write: bool,
    /// Whether it serves reads.
    pub read: bool,
    /// Whether it is listed by `/ras/relays/public`.
    pub public: bool,
}

impl RelaySettings {
    /// Why these settings break the rules (E1951).
    pub fn check(&self) -> Result<(), String> {
        let scheme_ok = self.endpoint.starts_with("http://") || self.endpoint.starts_with("https://");
        if !scheme_ok || self.endpoint.len() > MAX_ENDPOINT_BYTES || self.endpoint.chars().any(char::is_whitespace) {
            return Err(format!("an endpoint is an http(s) URL of at most {MAX_ENDPOINT_BYTES} bytes without spaces"));
        }
        if self.capacity_bytes == 0 || self.capacity_bytes > MAX_RELAY_CAPACITY_BYTES {
            return Err(format!("a relay's capacity is 1 to {MAX_RELAY_CAPACITY_BYTES} bytes"));
        }
        Ok(())
    }

    fn args(&self) -> ArgsBuilder {
        ArgsBuilder::new()
            .text("endpoint", &self.endpoint)
            .uint("capacity_bytes", self.capacity_bytes)
            .u128("price_per_byte_block", self.price_per_byte_block)
            .bool("write", self.write)
            .bool("read", self.read)
            .bool("public", self.public)
    }

    fn read_args(args: &Args<'_>) -> Result<Self, ArgsError> {
        Ok(RelaySettings {
            endpoint: args.text("endpoint")?.to_owned(),
            capacity_bytes: args.uint("capacity_bytes")?,
            price_per_byte_block: args.u128("price_per_byte_block")?,
            write: args.bool("write")?,
            read: args.bool("read")?,
            public: args.bool("public")?,
        })
    }
}

const SETTINGS_KEYS: [&str; 6] = ["endpoint", "capacity_bytes", "price_per_byte_block", "write", "read", "public"];

/// One call of the relay registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelayCall {
    /// `register {endpoint, capacity_bytes, price_per_byte_block, write, read, public}`, the
    /// stake as value.
    Register(RelaySettings),
    /// `update {the same keys}`: replaces the settings; a value adds to the stake.
    Update(RelaySettings),
    /// `heartbeat {}`.
    Heartbeat,
    /// `deregister {}`: the stake starts unbonding (refused while it serves volumes).
    Deregister,
    /// `withdraw {}`: pays back the matured unbondings.
    Withdraw,
}

/// One call of the storage manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageCall {
    /// `create {"name", "relay", "public", "max_size_bytes"}`: the fee plus the first deposit
    /// as value.
    Create {
        /// 1–64 bytes of `a`–`z`, `0`–`9`, `.`, `_`, `-`.
        name: String,
        /// The relay that will hold it (registered, healthy, taking writes).
        relay: Address,
        /// Whether anyone may read it through the relay.
        public: bool,
        /// Most bytes its rent is charged on (at most [`MAX_VOLUME_SIZE_BYTES`]).
        max_size_bytes: u64,
    },
    /// `resize {"volume", "max_size_bytes"}`: the owner sets the most bytes the rent is charged
    /// on (lower at once, higher from the next rent window).
    Resize {
        /// The volume.
        volume: H256,
        /// The new cap (at most [`MAX_VOLUME_SIZE_BYTES`]).
        max_size_bytes: u64,
    },
    /// `deposit {"volume"}`: adds the value to the volume's deposit (anyone may pay).
    Deposit {
        /// The volume.
        volume: H256,
    },
    /// `delete {"volume"}`: the owner deletes it; undeletable for `volume_grace_blocks`.
    Delete {
        /// The volume.
        volume: H256,
    },
    /// `undelete {"volume"}`: the owner takes back a deletion still in its grace.
    Undelete {
        /// The volume.
        volume: H256,
    },
    /// `commit {"volume", "root", "size_bytes"}`: the volume's relay records its manifest.
    Commit {
        /// The volume.
        volume: H256,
        /// The manifest's root (see the relay's documentation).
        root: H256,
        /// Bytes of its objects.
        size_bytes: u64,
    },
    /// `reap {"volume"}`: anyone removes a purged volume; the owner gets the deposit left.
    Reap {
        /// The volume.
        volume: H256,
    },
    /// `drop {"volume"}`: the volume's relay stops holding it: no more rent, purged
    /// `volume_grace_blocks` later.
    Drop {
        /// The volume.
        volume: H256,
    },
    /// `revoke {"session_key"}`: the sender's delegation tokens for this session key are
    /// refused from now on, by the node and by relays.
    Revoke {
        /// The compressed secp256k1 session key.
        session_key: [u8; 33],
    },
}

impl SystemCall for RelayCall {
    const ADDRESS: Address = RELAY_REGISTRY_ADDRESS;
    const NAME: &'static str = "the relay registry";

    /// Every handler of the relay registry.
    const HANDLERS: &'static [&'static str] = &["register", "update", "heartbeat", "deregister", "withdraw"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            RelayCall::Register(_) => "register",
            RelayCall::Update(_) => "update",
            RelayCall::Heartbeat => "heartbeat",
            RelayCall::Deregister => "deregister",
            RelayCall::Withdraw => "withdraw",
        }
    }

    /// Whether it may carry value (the stake).
    fn takes_value(&self) -> bool {
        matches!(self, RelayCall::Register(_) | RelayCall::Update(_))
    }

    /// What the call costs before it runs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64) {
        // Registering, updating and deregistering can each change both relay listings (public,
        // writing).
        let listings = (2 * LISTING_CYCLES, 2 * LISTING_CELLS);
        match self {
            RelayCall::Register(s) => {
                (RELAY_REGISTER_CYCLES + listings.0, RELAY_RECORD_CELLS + 64 + s.endpoint.len() as u64 + listings.1)
            }
            RelayCall::Update(s) => {
                (RELAY_CHANGE_CYCLES + listings.0, RELAY_RECORD_CELLS + s.endpoint.len() as u64 + listings.1)
            }
            RelayCall::Deregister => (RELAY_CHANGE_CYCLES + listings.0, listings.1),
            RelayCall::Heartbeat | RelayCall::Withdraw => (RELAY_CHANGE_CYCLES, 0),
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        match self {
            RelayCall::Register(s) | RelayCall::Update(s) => s.args().encode(),
            RelayCall::Heartbeat | RelayCall::Deregister | RelayCall::Withdraw => ArgsBuilder::new().encode(),
        }
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        Ok(match handler {
            "register" | "update" => {
                args.only(&SETTINGS_KEYS)?;
                let settings = RelaySettings::read_args(&args)?;
                if handler == "register" { RelayCall::Register(settings) } else { RelayCall::Update(settings) }
            }
            "heartbeat" | "deregister" | "withdraw" => {
                args.only(&[])?;
                match handler {
                    "heartbeat" => RelayCall::Heartbeat,
                    "deregister" => RelayCall::Deregister,
                    _ => RelayCall::Withdraw,
                }
            }
            other => {
                return Err(SystemCallError::unknown_handler::<Self>(other));
            }
        })
    }
}

/// Why a volume's `max_size_bytes` breaks the rules (E1955).
pub fn check_max_size(max_size_bytes: u64) -> Result<(), String> {
    if max_size_bytes > MAX_VOLUME_SIZE_BYTES {
        return Err(format!("a volume's max_size_bytes is at most {MAX_VOLUME_SIZE_BYTES}"));
    }
    Ok(())
}

/// The first height of the rent window after the one `height` is in.
pub fn next_window(height: u64) -> u64 {
    (height / RENT_WINDOW_BLOCKS).saturating_add(1).saturating_mul(RENT_WINDOW_BLOCKS)
}

/// Why a volume name breaks the rules (E1955).
pub fn check_volume_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_VOLUME_NAME_BYTES
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!("a volume name is 1 to {MAX_VOLUME_NAME_BYTES} characters of a-z 0-9 . _ -"))
    }
}

/// The id of `owner`'s volume `name`: keccak256(owner ‖ name).
pub fn volume_id(owner: &Address, name: &str) -> H256 {
    keccak256(&[&owner.0[..], name.as_bytes()].concat())
}

impl StorageCall {
    /// The volume the call is about (`None` for `create` and `revoke`).
    pub fn volume(&self) -> Option<H256> {
        match self {
            StorageCall::Resize { volume, .. }
            | StorageCall::Deposit { volume }
            | StorageCall::Delete { volume }
            | StorageCall::Undelete { volume }
            | StorageCall::Commit { volume, .. }
            | StorageCall::Reap { volume }
            | StorageCall::Drop { volume } => Some(*volume),
            StorageCall::Create { .. } | StorageCall::Revoke { .. } => None,
        }
    }
}

impl SystemCall for StorageCall {
    const ADDRESS: Address = STORAGE_MANAGER_ADDRESS;
    const NAME: &'static str = "the storage manager";

    /// Every handler of the storage manager.
    const HANDLERS: &'static [&'static str] =
        &["create", "resize", "deposit", "delete", "undelete", "commit", "reap", "drop", "revoke"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            StorageCall::Create { .. } => "create",
            StorageCall::Resize { .. } => "resize",
            StorageCall::Deposit { .. } => "deposit",
            StorageCall::Delete { .. } => "delete",
            StorageCall::Undelete { .. } => "undelete",
            StorageCall::Commit { .. } => "commit",
            StorageCall::Reap { .. } => "reap",
            StorageCall::Drop { .. } => "drop",
            StorageCall::Revoke { .. } => "revoke",
        }
    }

    /// Whether it may carry value (the fee and deposit).
    fn takes_value(&self) -> bool {
        matches!(self, StorageCall::Create { .. } | StorageCall::Deposit { .. })
    }

    /// What the call costs before it runs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64) {
        match self {
            // A created volume joins its owner's listing, a reaped one leaves it.
            StorageCall::Create { name, .. } => {
                (VOLUME_CALL_CYCLES + LISTING_CYCLES, VOLUME_RECORD_CELLS + LISTING_CELLS + name.len() as u64)
            }
            StorageCall::Reap { .. } => (VOLUME_CALL_CYCLES + LISTING_CYCLES, LISTING_CELLS),
            StorageCall::Revoke { .. } => (VOLUME_CALL_CYCLES, REVOCATION_CELLS),
            _ => (VOLUME_CALL_CYCLES, 0),
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        let args = ArgsBuilder::new();
        match self {
            StorageCall::Create { name, relay, public, max_size_bytes } => args
                .text("name", name)
                .address("relay", relay)
                .bool("public", *public)
                .uint("max_size_bytes", *max_size_bytes),
            StorageCall::Resize { volume, max_size_bytes } => {
                args.id("volume", volume).uint("max_size_bytes", *max_size_bytes)
            }
            StorageCall::Deposit { volume }
            | StorageCall::Delete { volume }
            | StorageCall::Undelete { volume }
            | StorageCall::Reap { volume }
            | StorageCall::Drop { volume } => args.id("volume", volume),
            StorageCall::Commit { volume, root, size_bytes } => {
                args.id("volume", volume).id("root", root).uint("size_bytes", *size_bytes)
            }
            StorageCall::Revoke { session_key } => args.bytes("session_key", session_key),
        }
        .encode()
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        let volume = || args.id("volume");
        Ok(match handler {
            "create" => {
                args.only(&["name", "relay", "public", "max_size_bytes"])?;
                StorageCall::Create {
                    name: args.text("name")?.to_owned(),
                    relay: args.address("relay")?,
                    public: args.bool("public")?,
                    max_size_bytes: args.uint("max_size_bytes")?,
                }
            }
            "resize" => {
                args.only(&["volume", "max_size_bytes"])?;
                StorageCall::Resize { volume: volume()?, max_size_bytes: args.uint("max_size_bytes")? }
            }
            "deposit" | "delete" | "undelete" | "reap" | "drop" => {
                args.only(&["volume"])?;
                let volume = volume()?;
                match handler {
                    "deposit" => StorageCall::Deposit { volume },
                    "delete" => StorageCall::Delete { volume },
                    "undelete" => StorageCall::Undelete { volume },
                    "reap" => StorageCall::Reap { volume },
                    _ => StorageCall::Drop { volume },
                }
            }
            "commit" => {
                args.only(&["volume", "root", "size_bytes"])?;
                StorageCall::Commit { volume: volume()?, root: args.id("root")?, size_bytes: args.uint("size_bytes")? }
            }
            "revoke" => {
                args.only(&["session_key"])?;
                let session_key = args.bytes("session_key")?.try_into().map_err(|_| ArgsError::Invalid {
                    key: "session_key".into(),
                    expected: "33 bytes (a compressed secp256k1 key)",
                })?;
                StorageCall::Revoke { session_key }
            }
            other => {
                return Err(SystemCallError::unknown_handler::<Self>(other));
            }
        })
    }
}

/// Where a volume is in its life at a height (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum VolumeStatus {
    /// Paid for: its relay takes writes and serves reads.
    Active,
    /// Its deposit ran out: read-only until topped up, purged when the grace ends.
    Grace,
    /// Deleted by its owner: undeletable until the grace ends.
    Deleted,
    /// Gone: its relay may drop the bytes; `reap` removes the record.
    Purged,
}

impl VolumeStatus {
    /// The text form.
    pub fn as_str(self) -> &'static str {
        match self {
            VolumeStatus::Active => "active",
            VolumeStatus::Grace => "grace",
            VolumeStatus::Deleted => "deleted",
            VolumeStatus::Purged => "purged",
        }
    }
}

/// Billed bytes that grew and are charged from a later height (the first block of the next rent
/// window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Growth {
    /// The billed bytes from `from_height` on.
    pub size_bytes: u64,
    /// The first block charged at them.
    pub from_height: u64,
}

/// A volume's rent account: what its status and settlement follow from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rent {
    /// Bytes the rent is charged on from `settled_height` (the committed size within the owner's
    /// cap, once in force).
    pub size_bytes: u64,
    /// Base units per byte per block, fixed at creation.
    pub price_per_byte_block: u128,
    /// Deposit left as of `settled_height`.
    pub deposit: u128,
    /// Every block before this one is paid.
    pub settled_height: u64,
    /// Height of the owner's deletion (or the relay's drop), if any.
    pub deleted_height: Option<u64>,
    /// Billed bytes that grew and are not charged yet (never below `size_bytes`).
    pub growth: Option<Growth>,
}

impl Rent {
    /// Base units per block at the billed bytes in force (saturating: a rate past u128 is never
    /// paid).
    pub fn per_block(&self) -> u128 {
        rate(self.size_bytes, self.price_per_byte_block)
    }

    /// The first height the deposit does not pay for (`None` when rent is free).
    pub fn paid_until(&self) -> Option<u64> {
        let now = self.per_block();
        let blocks = |deposit: u128, rate: u128| u64::try_from(deposit / rate).unwrap_or(u64::MAX);
        let Some(growth) = self.growth else {
            return (now > 0).then(|| self.settled_height.saturating_add(blocks(self.deposit, now)));
        };
        // The blocks before the growth at today's rate, then the rest at the grown one.
        let before = growth.from_height.saturating_sub(self.settled_height);
        let cost_before = now.saturating_mul(u128::from(before));
        if now > 0 && self.deposit < cost_before {
            return Some(self.settled_height.saturating_add(blocks(self.deposit, now)));
        }
        let grown = rate(growth.size_bytes, self.price_per_byte_block);
        (grown > 0).then(|| growth.from_height.saturating_add(blocks(self.deposit - cost_before, grown)))
    }

    /// The first height at which the volume is purged: its deletion's or its deposit's end
    /// plus `grace_blocks`; `None` while its rent is free and it is not deleted.
    pub fn purge_height(&self, grace_blocks: u64) -> Option<u64> {
        self.deleted_height.or_else(|| self.paid_until()).map(|end| end.saturating_add(grace_blocks))
    }

    /// The status at `height` with a grace of `grace_blocks`.
    pub fn status_at(&self, height: u64, grace_blocks: u64) -> VolumeStatus {
        match self.purge_height(grace_blocks) {
            Some(purge) if height >= purge => VolumeStatus::Purged,
            _ if self.deleted_height.is_some() => VolumeStatus::Deleted,
            _ if self.paid_until().is_some_and(|until| height >= until) => VolumeStatus::Grace,
            _ => VolumeStatus::Active,
        }
    }

    /// Charges the rent on `size_bytes` from `height` (a call at that height, after settling):
    /// fewer bytes at once, more from the first block of the next rent window ([`next_window`]).
    /// A later change replaces a growth not charged yet.
    pub fn bill(&mut self, size_bytes: u64, height: u64) {
        if size_bytes <= self.size_bytes {
            self.size_bytes = size_bytes;
            self.growth = None;
        } else {
            self.growth = Some(Growth { size_bytes, from_height: next_window(height) });
        }
    }

    /// Settles the rent of the blocks before `height` as a call in that block does: like
    /// [`Rent::settle`], but a deleted volume pays nothing past its purge height.
    pub fn settle_before(&mut self, height: u64, grace_blocks: u64) -> u128 {
        let until = self.deleted_height.map_or(height, |deleted| height.min(deleted.saturating_add(grace_blocks)));
        self.settle(until)
    }

    /// Settles the rent of the blocks before `height`: takes what whole blocks the deposit
    /// pays for and answers the amount taken; a growth due by then is charged from its height
    /// once the blocks before it are paid. Unpaid blocks stay owed, so a later deposit pays
    /// them first.
    pub fn settle(&mut self, height: u64) -> u128 {
        let mut paid = 0;
        if let Some(growth) = self.growth.filter(|growth| growth.from_height <= height) {
            paid = self.settle_flat(growth.from_height);
            if self.settled_height < growth.from_height {
                return paid;
            }
            self.size_bytes = growth.size_bytes;
            self.growth = None;
        }
        paid + self.settle_flat(height)
    }

    /// [`Rent::settle`] at the billed bytes in force.
    fn settle_flat(&mut self, height: u64) -> u128 {
        let rate = self.per_block();
        let due_blocks = height.saturating_sub(self.settled_height);
        if rate == 0 {
            self.settled_height = self.settled_height.max(height);
            return 0;
        }
        let affordable = u64::try_from(self.deposit / rate).unwrap_or(u64::MAX);
        let blocks = due_blocks.min(affordable);
        let paid = rate * u128::from(blocks);
        self.deposit -= paid;
        self.settled_height += blocks;
        paid
    }
}

/// Base units per block for `size_bytes` at `price_per_byte_block` (saturating).
fn rate(size_bytes: u64, price_per_byte_block: u128) -> u128 {
    u128::from(size_bytes).saturating_mul(price_per_byte_block)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> RelaySettings {
        RelaySettings {
            endpoint: "http://127.0.0.1:7000".into(),
            capacity_bytes: 1 << 30,
            price_per_byte_block: 2,
            write: true,
            read: true,
            public: true,
        }
    }

    #[test]
    fn calls_round_trip_through_their_messages() {
        let volume = H256([3; 32]);
        let calls = [
            StorageCall::Create { name: "photos".into(), relay: Address([1; 20]), public: false, max_size_bytes: 9 },
            StorageCall::Resize { volume, max_size_bytes: 10 },
            StorageCall::Deposit { volume },
            StorageCall::Delete { volume },
            StorageCall::Undelete { volume },
            StorageCall::Commit { volume, root: H256([4; 32]), size_bytes: 10 },
            StorageCall::Reap { volume },
            StorageCall::Drop { volume },
            StorageCall::Revoke { session_key: [2; 33] },
        ];
        for call in calls {
            let message = call.message();
            assert_eq!(StorageCall::decode(&message.handler, &message.payload), Ok(call));
        }
        for call in [
            RelayCall::Register(settings()),
            RelayCall::Update(settings()),
            RelayCall::Heartbeat,
            RelayCall::Deregister,
            RelayCall::Withdraw,
        ] {
            let message = call.message();
            assert_eq!(RelayCall::decode(&message.handler, &message.payload), Ok(call));
        }
        assert!(matches!(StorageCall::decode("steal", &[0xa0]), Err(SystemCallError::Handler { .. })));
        assert!(matches!(RelayCall::decode("heartbeat", &[0xa1, 0x61, 0x78, 0x01]), Err(SystemCallError::Args(_))));
    }

    #[test]
    fn settings_and_names_are_checked() {
        assert_eq!(settings().check(), Ok(()));
        for bad in ["ftp://x", "http://a b", &format!("http://{}", "a".repeat(MAX_ENDPOINT_BYTES))] {
            assert!(RelaySettings { endpoint: bad.into(), ..settings() }.check().is_err(), "{bad}");
        }
        assert!(RelaySettings { capacity_bytes: 0, ..settings() }.check().is_err());
        assert_eq!(check_volume_name("my-vol.1"), Ok(()));
        for bad in ["", "Caps", "a/b", &"a".repeat(MAX_VOLUME_NAME_BYTES + 1)] {
            assert!(check_volume_name(bad).is_err(), "{bad:?}");
        }
        let owner = Address([9; 20]);
        assert_eq!(volume_id(&owner, "a"), keccak256(&[&[9u8; 20][..], b"a"].concat()));
    }

    #[test]
    fn rent_is_paid_by_whole_blocks_and_arrears_come_first() {
        // 10 bytes at 3 per byte-block: 30 per block; 100 deposited pays 3 blocks.
        let mut rent = Rent {
            size_bytes: 10,
            price_per_byte_block: 3,
            deposit: 100,
            settled_height: 5,
            deleted_height: None,
            growth: None,
        };
        assert_eq!(rent.paid_until(), Some(8));
        assert_eq!(rent.status_at(7, 4), VolumeStatus::Active);
        assert_eq!(rent.status_at(8, 4), VolumeStatus::Grace);
        assert_eq!(rent.status_at(12, 4), VolumeStatus::Purged);
        assert_eq!(rent.settle(7), 60, "blocks 5 and 6");
        assert_eq!((rent.deposit, rent.settled_height), (40, 7));
        assert_eq!(rent.settle(20), 30, "only block 7 is affordable");
        assert_eq!((rent.deposit, rent.settled_height), (10, 8));
        // A top-up in grace pays the arrears (blocks 8..10) before anything else.
        rent.deposit += 90;
        assert_eq!(rent.settle(11), 90);
        assert_eq!((rent.deposit, rent.settled_height, rent.paid_until()), (10, 11, Some(11)));
        // Conservation: what was paid plus what is left is what came in.
        assert_eq!(60 + 30 + 90 + rent.deposit, 100 + 90);
    }

    #[test]
    fn free_and_deleted_volumes() {
        let mut rent = Rent {
            size_bytes: 0,
            price_per_byte_block: 3,
            deposit: 0,
            settled_height: 1,
            deleted_height: None,
            growth: None,
        };
        assert_eq!((rent.paid_until(), rent.status_at(1_000_000, 10)), (None, VolumeStatus::Active));
        assert_eq!(rent.settle(50), 0);
        assert_eq!(rent.settled_height, 50);
        rent.deleted_height = Some(60);
        assert_eq!(rent.status_at(69, 10), VolumeStatus::Deleted);
        assert_eq!(rent.status_at(70, 10), VolumeStatus::Purged);
        // A rate past u128 saturates and is never affordable.
        let huge = Rent { size_bytes: u64::MAX, price_per_byte_block: u128::MAX, deposit: u128::MAX, ..rent };
        assert_eq!(huge.per_block(), u128::MAX);
    }

    #[test]
    fn growth_is_charged_from_the_next_window_and_a_shrink_at_once() {
        assert_eq!((next_window(0), next_window(99), next_window(100), next_window(250)), (100, 100, 200, 300));
        // 10 bytes at 3: 30 a block, settled at 150 with 10,000 deposited.
        let mut rent = Rent {
            size_bytes: 10,
            price_per_byte_block: 3,
            deposit: 10_000,
            settled_height: 150,
            deleted_height: None,
            growth: None,
        };
        // Grown to 100 bytes at 150: still 30 a block until 200, then 300.
        rent.bill(100, 150);
        assert_eq!(rent.growth, Some(Growth { size_bytes: 100, from_height: 200 }));
        assert_eq!(rent.per_block(), 30);
        // 50 blocks at 30 (1,500), then 8,500 / 300 = 28 blocks: paid until 228.
        assert_eq!(rent.paid_until(), Some(228));
        let mut early = rent;
        assert_eq!(early.settle(190), 40 * 30, "nothing at the grown size before its window");
        assert_eq!((early.size_bytes, early.growth.is_some()), (10, true));
        assert_eq!(rent.settle(210), 50 * 30 + 10 * 300);
        assert_eq!((rent.size_bytes, rent.growth, rent.settled_height), (100, None, 210));
        // A shrink is charged at once and cancels a growth not charged yet.
        rent.bill(500, 210);
        rent.bill(40, 211);
        assert_eq!((rent.size_bytes, rent.growth), (40, None));
        // A deposit that runs out before the growth's window: paid until then, the growth never
        // charged, and a later settlement stops there too.
        let mut short = Rent { size_bytes: 1, deposit: 24, settled_height: 190, growth: None, ..rent };
        short.bill(1_000, 190);
        assert_eq!(short.paid_until(), Some(198), "24 pays 8 of the 10 blocks before the window, at 3");
        assert_eq!(short.settle(260), 24);
        assert_eq!((short.settled_height, short.size_bytes, short.growth.is_some()), (198, 1, true));
        // From nothing: a free volume that grows is charged from the window on.
        let mut free = Rent { size_bytes: 0, deposit: 3_000, settled_height: 5, growth: None, ..rent };
        free.bill(10, 5);
        assert_eq!(free.paid_until(), Some(200));
        assert_eq!(free.settle(150), 1_500);
    }
}

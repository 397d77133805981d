//! Keeping a [`Listing`] (`drover_state::listing`) in step with the records it lists: the one
//! place the executor adds an item to an owner's listing or removes one.
//!
//! Both are idempotent (adding a listed item or removing an unlisted one changes nothing), so a
//! family calls them on every change of a record's existence without tracking whether it did
//! before. Each costs at most three reads and five writes; the family's call prices it
//! ([`LISTING_CYCLES`](drover_types::params::LISTING_CYCLES),
//! [`LISTING_CELLS`](drover_types::params::LISTING_CELLS) per change it can make). A listing that
//! contradicts itself (a place past the count, an empty slot below it) fails the call with E1900.

use crate::native::NativeHost;
use drover_state::{
    decode_count,
    listing::{Listing, decode_item, decode_place},
};
use drover_vm::HostError;

/// Appends `item` to `listing` unless it is listed already.
pub(crate) fn add<H: NativeHost>(host: &mut H, listing: &Listing, item: &[u8]) -> Result<(), HostError> {
    if host.read_record(&listing.place_key(item), decode_place)?.is_some() {
        return Ok(());
    }
    let count = host.read_record(&listing.count_key(), decode_count)?.unwrap_or(0);
    for (key, value) in listing.push(count, item) {
        host.write_record(key, value);
    }
    Ok(())
}

/// Removes `item` from `listing` if it is listed: the last item moves into its slot.
pub(crate) fn remove<H: NativeHost>(host: &mut H, listing: &Listing, item: &[u8]) -> Result<(), HostError> {
    let Some(slot) = host.read_record(&listing.place_key(item), decode_place)? else {
        return Ok(());
    };
    let corrupt = |what: &str| HostError::internal(format!("listing: {what}"));
    let count = host.read_record(&listing.count_key(), decode_count)?.unwrap_or(0);
    let end = count.checked_sub(1).filter(|end| slot <= *end).ok_or_else(|| corrupt("a place past the count"))?;
    let last = if slot == end {
        item.to_vec()
    } else {
        host.read_record(&listing.slot_key(end), decode_item)?
            .ok_or_else(|| corrupt("an empty slot below the count"))?
    };
    for (key, value) in listing.swap_remove(count, slot, item, &last) {
        host.write_record(key, value);
    }
    Ok(())
}

/// Adds `item` to `listing` when `listed`, else removes it.
pub(crate) fn set<H: NativeHost>(host: &mut H, listing: &Listing, item: &[u8], listed: bool) -> Result<(), HostError> {
    if listed { add(host, listing, item) } else { remove(host, listing, item) }
}

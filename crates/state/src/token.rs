//! Token records: native fungible tokens live in the storage of the tokens system actor
//! (`0x00…0c`), so every record here is an ordinary storage entry of that address and
//! `/proof/storage/0x…0c/{key}` proves it like any actor's storage.
//!
//! The functions below give each record's *user key* inside that storage; the state key is
//! `storage_key(TOKENS_ADDRESS, user key)` ([`state_key`]), whose
//! index prefix is a keccak spread, so neither token ids nor holders can be chosen to collide.
//! Holdings are the one record laid out differently: by holder, under the token prefix `0x06`
//! ([`holdings_range`]), so that the tokens one address holds are one key range; `storage_key`
//! maps their user key there, so they are still read and proven as the tokens actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"t" ‖ token(20)` | [`TokenRecord`] |
//! | `"b" ‖ token(20) ‖ holder(20)` | [`Holding`]: balance and frozen flag |
//! | `"a" ‖ token(20) ‖ owner(20) ‖ spender(20)` | allowance, a CBOR unsigned integer |
//! | `"n"` | number of tokens ever created (count record) |
//! | `"i" ‖ seq(8, BE)` | id of the `seq`-th token created (creation order, for `/tokens`) |
//! | `"h" ‖ …` | each holder's listing of the tokens it has a balance of ([`holdings_listing`]) |
//!
//! Invariants: a [`Holding`] is stored only while its balance is non-zero or it is frozen. A
//! token is in its holder's listing exactly while the holder's balance of it is non-zero (a
//! frozen holding without a balance is not listed). The sum of all balances of a token is its
//! `supply`. An allowance of zero is not stored.

use crate::RecordError;
use crate::keys::storage_key;
use crate::listing::Listing;
use drover_types::{
    Address,
    cbor::{Writer, decode_fixed, decode_strict, decode_u128, expect_array, take_null},
    token::TOKENS_ADDRESS,
};

/// The state key of the tokens actor's storage entry `user_key`.
pub fn state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&TOKENS_ADDRESS, user_key)
}

/// User key of a token's [`TokenRecord`].
pub fn record_key(token: &Address) -> Vec<u8> {
    [&b"t"[..], &token.0].concat()
}

/// User key of `holder`'s [`Holding`] of `token`.
pub fn holding_key(token: &Address, holder: &Address) -> Vec<u8> {
    [&b"b"[..], &token.0, &holder.0].concat()
}

/// User key of the allowance `owner` gave `spender` for `token`.
pub fn allowance_key(token: &Address, owner: &Address, spender: &Address) -> Vec<u8> {
    [&b"a"[..], &token.0, &owner.0, &spender.0].concat()
}

/// User key of the number of tokens created so far.
pub fn token_count_key() -> Vec<u8> {
    b"n".to_vec()
}

/// User key of the id of the `seq`-th token created (from 0).
pub fn token_by_seq_key(seq: u64) -> Vec<u8> {
    [&b"i"[..], &seq.to_be_bytes()].concat()
}

/// The listing of the tokens `holder` has a non-zero balance of (items: token ids), so that
/// `/account/{address}/tokens` pages by point lookups whatever the holder holds (see
/// [`crate::listing`]).
pub fn holdings_listing(holder: &Address) -> Listing {
    Listing::counted(state_key, b'h', &holder.0)
}

/// The range of `holder`'s holdings, in token order.
pub fn holdings_range(holder: &Address) -> Vec<u8> {
    crate::keys::owned_range(crate::keys::PREFIX_TOKEN, holder)
}

/// The holder and token of a holding's state key, or `None` if `key` is not one.
pub fn holding_entry(key: &[u8]) -> Option<(Address, Address)> {
    let (holder, token) = crate::keys::owned_entry(crate::keys::PREFIX_TOKEN, Address::LEN, key)?;
    Some((holder, Address::from_slice(token)?))
}

/// A token: `[name, symbol, decimals, supply, max_supply | null, owner, mintable,
/// created_height, creator]`. Its place in creation order is the `"i" ‖ seq` entry naming it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRecord {
    /// Display name.
    pub name: String,
    /// Ticker, unique per creator.
    pub symbol: String,
    /// Decimal places of a whole token.
    pub decimals: u8,
    /// Base units in existence: the sum of all balances.
    pub supply: u128,
    /// Most base units that may exist (`None`: no cap below 2^128).
    pub max_supply: Option<u128>,
    /// Who may mint, freeze, unfreeze and hand over ownership.
    pub owner: Address,
    /// Whether the owner may mint.
    pub mintable: bool,
    /// Height of the block that created the token.
    pub created_height: u64,
    /// The address that created the token (part of its id).
    pub creator: Address,
}

impl TokenRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(128 + self.name.len());
        w.array(9).text(&self.name).text(&self.symbol).uint(u64::from(self.decimals)).u128(self.supply);
        match self.max_supply {
            Some(max) => w.u128(max),
            None => w.null(),
        };
        w.bytes(&self.owner.0).bool(self.mintable).uint(self.created_height).bytes(&self.creator.0);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one token record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 9)?;
            let name = d.str()?.to_owned();
            let symbol = d.str()?.to_owned();
            let decimals = d.u8()?;
            let supply = decode_u128(d)?;
            let max_supply = if take_null(d)? { None } else { Some(decode_u128(d)?) };
            Ok(TokenRecord {
                name,
                symbol,
                decimals,
                supply,
                max_supply,
                owner: Address(decode_fixed(d)?),
                mintable: d.bool()?,
                created_height: d.u64()?,
                creator: Address(decode_fixed(d)?),
            })
        })?)
    }
}

/// One holder's position in one token: `[balance, frozen]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holding {
    /// Base units held.
    pub balance: u128,
    /// Whether the token's owner froze this holder (no sending, no receiving).
    pub frozen: bool,
}

impl Holding {
    /// Whether the record carries nothing and is not stored.
    pub fn is_empty(&self) -> bool {
        self.balance == 0 && !self.frozen
    }

    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(24);
        w.array(2).u128(self.balance).bool(self.frozen);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one holding.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            Ok(Holding { balance: decode_u128(d)?, frozen: d.bool()? })
        })?)
    }
}

/// Canonical CBOR of an amount record (an allowance): a bare unsigned integer.
pub fn encode_amount(amount: u128) -> Vec<u8> {
    let mut w = Writer::with_capacity(18);
    w.u128(amount);
    w.into_inner()
}

/// Strict decode of an amount record.
pub fn decode_amount(bytes: &[u8]) -> Result<u128, RecordError> {
    Ok(decode_strict(bytes, decode_u128)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> TokenRecord {
        TokenRecord {
            name: "Gold".into(),
            symbol: "GLD".into(),
            decimals: 18,
            supply: u128::MAX,
            max_supply: Some(u128::MAX),
            owner: Address([1; 20]),
            mintable: true,
            created_height: 7,
            creator: Address([2; 20]),
        }
    }

    #[test]
    fn records_round_trip_and_refuse_corruption() {
        for record in [record(), TokenRecord { max_supply: None, mintable: false, supply: 0, ..record() }] {
            assert_eq!(TokenRecord::decode(&record.encode()), Ok(record));
        }
        for holding in [
            Holding { balance: 5, frozen: false },
            Holding { balance: 0, frozen: true },
            Holding { balance: u128::MAX, frozen: true },
        ] {
            assert_eq!(Holding::decode(&holding.encode()), Ok(holding));
        }
        assert_eq!(decode_amount(&encode_amount(u128::MAX)), Ok(u128::MAX));
        assert_eq!(crate::decode_address(&crate::encode_address(&Address([9; 20]))), Ok(Address([9; 20])));
        let mut bytes = record().encode();
        bytes.push(0);
        assert!(TokenRecord::decode(&bytes).is_err());
        assert!(Holding::decode(&record().encode()).is_err());
        assert!(decode_amount(&[0x18, 0x01]).is_err());
    }

    #[test]
    fn user_keys_do_not_overlap() {
        let (t, a, b) = (Address([1; 20]), Address([2; 20]), Address([3; 20]));
        let listing = holdings_listing(&a);
        let keys = [
            record_key(&t),
            holding_key(&t, &a),
            allowance_key(&t, &a, &b),
            token_count_key(),
            token_by_seq_key(0),
            b"h".to_vec(),
        ];
        let firsts: std::collections::BTreeSet<u8> = keys.iter().map(|k| k[0]).collect();
        assert_eq!(firsts.len(), keys.len());
        assert_eq!(state_key(&record_key(&t)), storage_key(&TOKENS_ADDRESS, &record_key(&t)));
        assert_eq!(listing.count_key(), state_key(&[&b"hn"[..], &a.0].concat()));
    }

    #[test]
    fn holdings_are_laid_out_by_holder() {
        let (t, u, holder) = (Address([1; 20]), Address([4; 20]), Address([2; 20]));
        let key = state_key(&holding_key(&t, &holder));
        assert!(key.starts_with(&holdings_range(&holder)));
        assert!(state_key(&holding_key(&u, &holder)).starts_with(&holdings_range(&holder)));
        assert_eq!(holding_entry(&key), Some((holder, t)));
        // Other actors' entries of the same bytes stay in their storage, and so do other shapes.
        assert_ne!(storage_key(&Address([9; 20]), &holding_key(&t, &holder)), key);
        let longer = [&holding_key(&t, &holder)[..], &[0]].concat();
        assert!(crate::keys::storage_entry(&state_key(&longer)).is_some());
    }
}

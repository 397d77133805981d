//! Native fungible tokens: the system actor at [`TOKENS_ADDRESS`].
//!
//! A call arrives like any actor call — a transaction's Message, or an actor's `call` host
//! function (entitlement `token.use`) — and the host's `call` hands it here instead of to the
//! VM. The caller is the sender: an account for a transaction, the calling actor for a `call`,
//! so actors hold, approve and move tokens exactly as accounts do. The calls and their argument
//! maps are [`TokenCall`]'s; the records and keys are `drover_state::token`'s.
//!
//! # Rules
//!
//! - `create` checks the metadata (E1409) and `initial_supply ≤ max_supply` (E1406), refuses a
//!   symbol its sender already used (E1408: the id `last20(keccak256(0x0c ‖ creator ‖ symbol))`
//!   exists), mints the initial supply to the sender, who becomes the owner, and answers the
//!   20-byte token id.
//! - Every other call names an existing token (E1401). `transfer`, `transfer_from` and `burn` need
//!   the holder's balance (E1402), `transfer_from` the spender's allowance (E1403, spent by the
//!   amount); a frozen holder neither sends, receives nor burns (E1407). `mint`, `freeze`,
//!   `unfreeze` and `set_owner` are the owner's (E1404); `mint` needs a mintable token (E1405)
//!   and keeps the supply within `max_supply` and 2^128-1 (E1406). `approve` sets the allowance.
//!   `balance` answers a holder's balance as a CBOR unsigned integer and writes nothing (so a
//!   read-only call may use it).
//! - Arguments that do not decode are E1202, an unknown handler E1205, attached value E1202, a
//!   write under a read-only call E1206.
//!
//! Supply conservation: every balance change is matched, in the same call, by the opposite
//! change of another balance or of the supply, with checked arithmetic, so the sum of a token's
//! balances is its supply at every call boundary. A refused call leaves no trace: the host's
//! checkpoint is restored, events included.
//!
//! # Costs
//!
//! Each operation costs a fixed number of cycles and cells (`SystemCall::cost` of `TokenCall`, a
//! protocol number clients use to set limits), charged before it runs,
//! on top of the transaction's intrinsic cost (or the caller's `call` cost): its work is a
//! constant number of record reads and writes (at most five), each of a key that the block
//! prefetches for a transaction (`SystemActor::prefetch_keys`), plus, for each balance that
//! becomes non-zero or zero, the change of its holder's listing (`drover_state::token::holdings_listing`,
//! at most three reads and five writes, priced per change the call can make). The figures come
//! from measurement, see `docs/tokens.md` ("Costs").
//!
//! Listings: a token is in its holder's listing exactly while the holder's balance of it is
//! non-zero, so `/account/{address}/tokens` pages by point lookups however many tokens anyone
//! sent the holder.

#[cfg(test)]
mod tests;

use crate::listing;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::{
    decode_count, encode_address, encode_count,
    token::{
        Holding, TokenRecord, allowance_key, decode_amount, encode_amount, holding_key, holdings_listing, record_key,
        state_key, token_by_seq_key, token_count_key,
    },
};
use drover_types::{
    Address, Event,
    cbor::Writer,
    exec_error::ExecCode,
    token::{self, NewToken, TOKENS_ADDRESS, TokenCall},
};
use drover_vm::{CallContext, HostError};

impl SystemActor for TokenCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let mut user_keys = Vec::with_capacity(5);
        match self {
            TokenCall::Create(new) => {
                user_keys.push(record_key(&token::token_id(sender, &new.symbol)));
                user_keys.push(token_count_key());
                user_keys.push(holding_key(&token::token_id(sender, &new.symbol), sender));
            }
            TokenCall::Transfer { token, to, .. } | TokenCall::Mint { token, to, .. } => {
                user_keys.extend([holding_key(token, sender), holding_key(token, to)]);
            }
            TokenCall::TransferFrom { token, from, to, .. } => {
                user_keys.extend([
                    holding_key(token, from),
                    holding_key(token, to),
                    allowance_key(token, from, sender),
                ]);
            }
            TokenCall::Approve { token, spender, .. } => user_keys.push(allowance_key(token, sender, spender)),
            TokenCall::Burn { token, .. } => user_keys.push(holding_key(token, sender)),
            TokenCall::Freeze { token, account }
            | TokenCall::Unfreeze { token, account }
            | TokenCall::Balance { token, account } => user_keys.push(holding_key(token, account)),
            TokenCall::SetOwner { .. } => {}
        }
        user_keys.extend(self.token().map(|token| record_key(&token)));
        user_keys.iter().map(|key| state_key(key)).collect()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        _meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        Tokens { host, sender: context.caller, height: context.block_height }.apply(self)
    }
}

/// One call's view of the token state, as `sender`.
struct Tokens<'x, H> {
    host: &'x mut H,
    sender: Address,
    height: u64,
}

fn refuse(code: ExecCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

/// Canonical CBOR array of event fields.
fn event_data(write: impl FnOnce(&mut Writer<Vec<u8>>)) -> Vec<u8> {
    let mut w = Writer::with_capacity(96);
    write(&mut w);
    w.into_inner()
}

impl<H: NativeHost> Tokens<'_, H> {
    fn apply(&mut self, call: TokenCall) -> Result<Vec<u8>, HostError> {
        let sender = self.sender;
        match call {
            TokenCall::Create(new) => self.create(new).map(|id| id.0.to_vec()),
            TokenCall::Transfer { token, to, amount } => {
                self.existing(&token)?;
                self.move_tokens(&token, &sender, &to, amount)?;
                Ok(Vec::new())
            }
            TokenCall::TransferFrom { token, from, to, amount } => {
                self.existing(&token)?;
                let key = allowance_key(&token, &from, &sender);
                let allowance = self.read(&key, decode_amount)?.unwrap_or(0);
                let Some(left) = allowance.checked_sub(amount) else {
                    return Err(refuse(
                        ExecCode::TokenAllowance,
                        format!("{from} allows {sender} {allowance} of {token}; {amount} asked"),
                    ));
                };
                self.write(key, (left > 0).then(|| encode_amount(left)));
                self.move_tokens(&token, &from, &to, amount)?;
                Ok(Vec::new())
            }
            TokenCall::Approve { token, spender, amount } => {
                self.existing(&token)?;
                self.write(allowance_key(&token, &sender, &spender), (amount > 0).then(|| encode_amount(amount)));
                self.emit(&token, token::EVENT_APPROVAL, |w| {
                    w.array(4).bytes(&token.0).bytes(&sender.0).bytes(&spender.0).u128(amount);
                });
                Ok(Vec::new())
            }
            TokenCall::Mint { token, to, amount } => {
                let mut record = self.owned(&token)?;
                if !record.mintable {
                    return Err(refuse(ExecCode::TokenNotMintable, format!("{token} was created without minting")));
                }
                record.supply = raised_supply(&record, amount)?;
                self.credit(&token, None, &to, amount)?;
                self.save_record(&token, &record);
                self.emit(&token, token::EVENT_MINT, |w| {
                    w.array(3).bytes(&token.0).bytes(&to.0).u128(amount);
                });
                Ok(Vec::new())
            }
            TokenCall::Burn { token, amount } => {
                let mut record = self.existing(&token)?;
                self.debit(&token, &sender, amount)?;
                // The burned units were part of the supply: it cannot go below zero.
                record.supply = record.supply.saturating_sub(amount);
                self.save_record(&token, &record);
                self.emit(&token, token::EVENT_BURN, |w| {
                    w.array(3).bytes(&token.0).bytes(&sender.0).u128(amount);
                });
                Ok(Vec::new())
            }
            TokenCall::Freeze { token, account } => self.set_frozen(&token, &account, true),
            TokenCall::Unfreeze { token, account } => self.set_frozen(&token, &account, false),
            TokenCall::SetOwner { token, owner } => {
                let record = self.owned(&token)?;
                let previous = record.owner;
                self.save_record(&token, &TokenRecord { owner, ..record });
                self.emit(&token, token::EVENT_OWNER, |w| {
                    w.array(3).bytes(&token.0).bytes(&previous.0).bytes(&owner.0);
                });
                Ok(Vec::new())
            }
            TokenCall::Balance { token, account } => {
                self.existing(&token)?;
                let balance = self.holding(&token, &account)?.balance;
                Ok(event_data(|w| {
                    w.u128(balance);
                }))
            }
        }
    }

    fn create(&mut self, new: NewToken) -> Result<Address, HostError> {
        token::check_metadata(&new.name, &new.symbol, new.decimals)
            .map_err(|reason| refuse(ExecCode::TokenMetadata, reason))?;
        if let Some(max) = new.max_supply
            && new.initial_supply > max
        {
            return Err(refuse(
                ExecCode::TokenMaxSupply,
                format!("initial_supply {} is above max_supply {max}", new.initial_supply),
            ));
        }
        let id = token::token_id(&self.sender, &new.symbol);
        if self.read(&record_key(&id), TokenRecord::decode)?.is_some() {
            return Err(refuse(
                ExecCode::TokenSymbolTaken,
                format!("{} already created {} ({id})", self.sender, new.symbol),
            ));
        }
        let seq = self.read(&token_count_key(), decode_count)?.unwrap_or(0);
        let record = TokenRecord {
            name: new.name,
            symbol: new.symbol,
            // `check_metadata` bounded it by MAX_DECIMALS.
            decimals: u8::try_from(new.decimals).unwrap_or(token::MAX_DECIMALS),
            supply: new.initial_supply,
            max_supply: new.max_supply,
            owner: self.sender,
            mintable: new.mintable,
            created_height: self.height,
            creator: self.sender,
        };
        self.save_record(&id, &record);
        self.write(token_by_seq_key(seq), Some(encode_address(&id)));
        self.write(token_count_key(), Some(encode_count(seq.saturating_add(1))));
        let creator = self.sender;
        self.emit(&id, token::EVENT_CREATED, |w| {
            w.array(3).bytes(&id.0).bytes(&creator.0).text(&record.symbol);
        });
        if new.initial_supply > 0 {
            self.credit(&id, None, &creator, new.initial_supply)?;
            self.emit(&id, token::EVENT_MINT, |w| {
                w.array(3).bytes(&id.0).bytes(&creator.0).u128(new.initial_supply);
            });
        }
        Ok(id)
    }

    /// Moves `amount` from `from` to `to` and emits the transfer event.
    fn move_tokens(&mut self, token: &Address, from: &Address, to: &Address, amount: u128) -> Result<(), HostError> {
        if from == to {
            // Nothing moves, but the rules hold as if it did.
            let holding = self.holding(token, from)?;
            unfrozen(token, from, &holding)?;
            covers(token, from, &holding, amount)?;
        } else {
            self.debit(token, from, amount)?;
            self.credit(token, Some(from), to, amount)?;
        }
        self.emit(token, token::EVENT_TRANSFER, |w| {
            w.array(4).bytes(&token.0).bytes(&from.0).bytes(&to.0).u128(amount);
        });
        Ok(())
    }

    fn debit(&mut self, token: &Address, holder: &Address, amount: u128) -> Result<(), HostError> {
        let old = self.holding(token, holder)?;
        unfrozen(token, holder, &old)?;
        let balance = covers(token, holder, &old, amount)?;
        self.set_holding(token, holder, old, Holding { balance, ..old })
    }

    /// Adds `amount` to `holder`'s balance, from `from`'s (`None`: minted).
    fn credit(
        &mut self,
        token: &Address,
        from: Option<&Address>,
        holder: &Address,
        amount: u128,
    ) -> Result<(), HostError> {
        let old = self.holding(token, holder)?;
        unfrozen(token, holder, &old)?;
        // Balances are bounded by the supply, which `raised_supply` keeps within u128.
        let balance = old
            .balance
            .checked_add(amount)
            .ok_or_else(|| refuse(ExecCode::TokenMaxSupply, format!("{holder}'s balance of {token} would overflow")))?;
        self.set_holding(token, holder, old, Holding { balance, ..old })?;
        self.host.token_credited(token, from, holder, amount);
        Ok(())
    }

    fn set_frozen(&mut self, token: &Address, account: &Address, frozen: bool) -> Result<Vec<u8>, HostError> {
        self.owned(token)?;
        let old = self.holding(token, account)?;
        self.set_holding(token, account, old, Holding { frozen, ..old })?;
        let topic = if frozen { token::EVENT_FREEZE } else { token::EVENT_UNFREEZE };
        self.emit(token, topic, |w| {
            w.array(2).bytes(&token.0).bytes(&account.0);
        });
        Ok(Vec::new())
    }

    /// Writes `holder`'s new holding in place of `old` (an empty one is removed), and lists or
    /// unlists the token for the holder when its balance becomes non-zero or zero.
    fn set_holding(&mut self, token: &Address, holder: &Address, old: Holding, new: Holding) -> Result<(), HostError> {
        self.write(holding_key(token, holder), (!new.is_empty()).then(|| new.encode()));
        if (old.balance > 0) != (new.balance > 0) {
            listing::set(self.host, &holdings_listing(holder), &token.0, new.balance > 0)?;
        }
        Ok(())
    }

    fn holding(&mut self, token: &Address, holder: &Address) -> Result<Holding, HostError> {
        Ok(self.read(&holding_key(token, holder), Holding::decode)?.unwrap_or_default())
    }

    fn existing(&mut self, token: &Address) -> Result<TokenRecord, HostError> {
        self.read(&record_key(token), TokenRecord::decode)?
            .ok_or_else(|| refuse(ExecCode::UnknownToken, format!("no token has the id {token}")))
    }

    /// The token's record, if the sender owns it.
    fn owned(&mut self, token: &Address) -> Result<TokenRecord, HostError> {
        let record = self.existing(token)?;
        if record.owner != self.sender {
            return Err(refuse(ExecCode::TokenNotOwner, format!("{token} is owned by {}", record.owner)));
        }
        Ok(record)
    }

    fn save_record(&mut self, token: &Address, record: &TokenRecord) {
        self.write(record_key(token), Some(record.encode()));
    }

    fn read<T>(
        &mut self,
        user_key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
    ) -> Result<Option<T>, HostError> {
        self.host.read_storage(&TOKENS_ADDRESS, user_key, decode)
    }

    fn write(&mut self, user_key: Vec<u8>, value: Option<Vec<u8>>) {
        self.host.write_storage(&TOKENS_ADDRESS, &user_key, value);
    }

    fn emit(&mut self, token: &Address, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
        self.host.emit_event(Event { address: *token, topic: topic.to_owned(), data: event_data(data) });
    }
}

fn unfrozen(token: &Address, holder: &Address, holding: &Holding) -> Result<(), HostError> {
    if holding.frozen {
        return Err(refuse(ExecCode::TokenFrozen, format!("{holder} is frozen for {token}")));
    }
    Ok(())
}

/// The balance left after taking `amount`, or E1402.
fn covers(token: &Address, holder: &Address, holding: &Holding, amount: u128) -> Result<u128, HostError> {
    holding.balance.checked_sub(amount).ok_or_else(|| {
        refuse(ExecCode::TokenBalance, format!("{holder} holds {} of {token}; {amount} asked", holding.balance))
    })
}

/// The supply after minting `amount`, within `max_supply` and u128.
fn raised_supply(record: &TokenRecord, amount: u128) -> Result<u128, HostError> {
    let cap = record.max_supply.unwrap_or(u128::MAX);
    record.supply.checked_add(amount).filter(|supply| *supply <= cap).ok_or_else(|| {
        refuse(ExecCode::TokenMaxSupply, format!("supply {} plus {amount} would pass the cap {cap}", record.supply))
    })
}

//! Native fungible tokens: the tokens system actor's address, its calls, the token id and the
//! rules a token's name, symbol and decimals follow.
//!
//! A token is not code: every token lives in the system actor at [`TOKENS_ADDRESS`], and a
//! transaction (or an actor's `call`) sends it a Message whose handler is one of
//! [`TokenCall`]'s and whose payload is that call's canonical argument map ([`crate::args`]).
//! Both sides use [`TokenCall`]: clients [`encode`](TokenCall::message) calls with it, the
//! executor [`decode`](TokenCall::decode)s them with it, so the wire form is defined once.
//!
//! Each call costs a fixed number of cycles and cells on top of the transaction's intrinsic
//! cost ([`SystemCall::cost`]): the executor charges exactly this, and clients set limits from it.
//!
//! A token's id is `last20(keccak256(0x0c ‖ creator ‖ symbol))` ([`token_id`]): one symbol per
//! creator, predictable before the creating transaction lands, written like an address.

use crate::args::{Args, ArgsBuilder};
use crate::params::{LISTING_CELLS, LISTING_CYCLES};
use crate::system_call::{SystemCall, SystemCallError};
use crate::{Address, keccak256};

/// The tokens system actor.
pub const TOKENS_ADDRESS: Address = Address::system(0x0c);

/// Longest token name, in bytes of UTF-8 (at least one).
pub const MAX_NAME_BYTES: usize = 64;
/// Longest token symbol, in characters of `A`–`Z` and `0`–`9` (at least one).
pub const MAX_SYMBOL_BYTES: usize = 16;
/// Most decimal places a token may declare.
pub const MAX_DECIMALS: u8 = 36;

/// Topic of the event a token's creation emits.
pub const EVENT_CREATED: &str = "token.created";
/// Topic of the event a token transfer (`transfer` or `transfer_from`) emits.
pub const EVENT_TRANSFER: &str = "token.transfer";
/// Topic of the event an `approve` emits.
pub const EVENT_APPROVAL: &str = "token.approval";
/// Topic of the event a `mint` (and the initial supply of a `create`) emits.
pub const EVENT_MINT: &str = "token.mint";
/// Topic of the event a `burn` emits.
pub const EVENT_BURN: &str = "token.burn";
/// Topic of the event a `freeze` emits.
pub const EVENT_FREEZE: &str = "token.freeze";
/// Topic of the event an `unfreeze` emits.
pub const EVENT_UNFREEZE: &str = "token.unfreeze";
/// Topic of the event a `set_owner` emits.
pub const EVENT_OWNER: &str = "token.owner";

/// Cycles of a `create`: the record, the creation-order entry, the count and the first holding.
pub const CREATE_CYCLES: u64 = 20_000;
/// Cycles of a `transfer`: the token record, two holdings read and written.
pub const TRANSFER_CYCLES: u64 = 4_000;
/// Cycles of a `transfer_from`: a transfer plus the allowance read and written.
pub const TRANSFER_FROM_CYCLES: u64 = 5_000;
/// Cycles of an `approve`: the token record read, the allowance written.
pub const APPROVE_CYCLES: u64 = 2_000;
/// Cycles of a `mint` or a `burn`: the token record and one holding read and written.
pub const SUPPLY_CYCLES: u64 = 3_000;
/// Cycles of a `freeze`, `unfreeze` or `set_owner`: the token record and one record written.
pub const ADMIN_CYCLES: u64 = 2_000;
/// Cycles of a `balance` read.
pub const BALANCE_CYCLES: u64 = 1_000;
/// Cells of a token record besides its name and symbol, with its creation-order entry.
pub const RECORD_CELLS: u64 = 160;
/// Cells of one holding (key and value) or one allowance.
pub const ENTRY_CELLS: u64 = 64;

/// `last20(keccak256(0x0c ‖ creator ‖ symbol))`: the id of the token `creator` creates with
/// `symbol`.
pub fn token_id(creator: &Address, symbol: &str) -> Address {
    let digest = keccak256(&[&[0x0c][..], &creator.0, symbol.as_bytes()].concat());
    let mut id = [0; Address::LEN];
    id.copy_from_slice(&digest.0[32 - Address::LEN..]);
    Address(id)
}

/// Why a token's metadata is refused (execution answers E1409).
pub fn check_metadata(name: &str, symbol: &str, decimals: u64) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(format!("a token name is 1 to {MAX_NAME_BYTES} bytes; {:?} has {}", name, name.len()));
    }
    if name.chars().any(char::is_control) {
        return Err("a token name has no control characters".to_owned());
    }
    if symbol.is_empty()
        || symbol.len() > MAX_SYMBOL_BYTES
        || !symbol.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        return Err(format!("a token symbol is 1 to {MAX_SYMBOL_BYTES} characters of A-Z and 0-9; got {symbol:?}"));
    }
    if decimals > u64::from(MAX_DECIMALS) {
        return Err(format!("decimals are 0 to {MAX_DECIMALS}; got {decimals}"));
    }
    Ok(())
}

/// A token's metadata as `create` takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewToken {
    /// Display name, 1–[`MAX_NAME_BYTES`] bytes.
    pub name: String,
    /// Ticker, 1–[`MAX_SYMBOL_BYTES`] of `A`–`Z0`–`9`; unique per creator.
    pub symbol: String,
    /// Decimal places of one whole token in base units, 0–[`MAX_DECIMALS`] (wider here so that
    /// execution, not decoding, refuses a value out of range: E1409).
    pub decimals: u64,
    /// Base units minted to the creator.
    pub initial_supply: u128,
    /// Most base units that may ever exist (`None`: no cap below 2^128).
    pub max_supply: Option<u128>,
    /// Whether the owner may mint after creation.
    pub mintable: bool,
}

/// One call of the tokens system actor: its handler and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenCall {
    /// `create`: a new token minted to the sender, who becomes its owner.
    Create(NewToken),
    /// `transfer`: moves the sender's tokens to `to`.
    Transfer {
        /// The token id.
        token: Address,
        /// The recipient.
        to: Address,
        /// Base units.
        amount: u128,
    },
    /// `approve`: sets how much `spender` may move from the sender's balance.
    Approve {
        /// The token id.
        token: Address,
        /// Who may spend.
        spender: Address,
        /// The new allowance in base units (replaces the old one).
        amount: u128,
    },
    /// `transfer_from`: the sender spends `from`'s allowance to move its tokens to `to`.
    TransferFrom {
        /// The token id.
        token: Address,
        /// The holder whose allowance to the sender is spent.
        from: Address,
        /// The recipient.
        to: Address,
        /// Base units.
        amount: u128,
    },
    /// `mint`: the owner of a mintable token creates `amount` for `to`.
    Mint {
        /// The token id.
        token: Address,
        /// The recipient.
        to: Address,
        /// Base units.
        amount: u128,
    },
    /// `burn`: destroys `amount` of the sender's tokens.
    Burn {
        /// The token id.
        token: Address,
        /// Base units.
        amount: u128,
    },
    /// `freeze`: the owner stops `account` from sending or receiving the token.
    Freeze {
        /// The token id.
        token: Address,
        /// The account frozen.
        account: Address,
    },
    /// `unfreeze`: the owner lets `account` send and receive the token again.
    Unfreeze {
        /// The token id.
        token: Address,
        /// The account released.
        account: Address,
    },
    /// `set_owner`: hands the token's owner rights to `owner`.
    SetOwner {
        /// The token id.
        token: Address,
        /// The new owner.
        owner: Address,
    },
    /// `balance` (a read): the balance of `account`, answered as a CBOR unsigned integer.
    Balance {
        /// The token id.
        token: Address,
        /// The holder.
        account: Address,
    },
}

impl TokenCall {
    /// The token a call acts on (`None` for `create`).
    pub fn token(&self) -> Option<Address> {
        match self {
            TokenCall::Create(_) => None,
            TokenCall::Transfer { token, .. }
            | TokenCall::Approve { token, .. }
            | TokenCall::TransferFrom { token, .. }
            | TokenCall::Mint { token, .. }
            | TokenCall::Burn { token, .. }
            | TokenCall::Freeze { token, .. }
            | TokenCall::Unfreeze { token, .. }
            | TokenCall::SetOwner { token, .. }
            | TokenCall::Balance { token, .. } => Some(*token),
        }
    }
}

impl SystemCall for TokenCall {
    const ADDRESS: Address = TOKENS_ADDRESS;
    const NAME: &'static str = "the tokens actor";
    const VALUE_REFUSED_AT_ADMISSION: bool = true;

    /// Every handler of the tokens actor.
    const HANDLERS: &'static [&'static str] = &[
        "create",
        "transfer",
        "approve",
        "transfer_from",
        "mint",
        "burn",
        "freeze",
        "unfreeze",
        "set_owner",
        "balance",
    ];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            TokenCall::Create(_) => "create",
            TokenCall::Transfer { .. } => "transfer",
            TokenCall::Approve { .. } => "approve",
            TokenCall::TransferFrom { .. } => "transfer_from",
            TokenCall::Mint { .. } => "mint",
            TokenCall::Burn { .. } => "burn",
            TokenCall::Freeze { .. } => "freeze",
            TokenCall::Unfreeze { .. } => "unfreeze",
            TokenCall::SetOwner { .. } => "set_owner",
            TokenCall::Balance { .. } => "balance",
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        let args = ArgsBuilder::new();
        let args = match self {
            TokenCall::Create(new) => {
                let args = args
                    .text("name", &new.name)
                    .text("symbol", &new.symbol)
                    .uint("decimals", new.decimals)
                    .u128("initial_supply", new.initial_supply)
                    .bool("mintable", new.mintable);
                match new.max_supply {
                    Some(max) => args.u128("max_supply", max),
                    None => args,
                }
            }
            TokenCall::Transfer { token, to, amount } | TokenCall::Mint { token, to, amount } => {
                args.address("token", token).address("to", to).u128("amount", *amount)
            }
            TokenCall::Approve { token, spender, amount } => {
                args.address("token", token).address("spender", spender).u128("amount", *amount)
            }
            TokenCall::TransferFrom { token, from, to, amount } => {
                args.address("token", token).address("from", from).address("to", to).u128("amount", *amount)
            }
            TokenCall::Burn { token, amount } => args.address("token", token).u128("amount", *amount),
            TokenCall::Freeze { token, account }
            | TokenCall::Unfreeze { token, account }
            | TokenCall::Balance { token, account } => args.address("token", token).address("account", account),
            TokenCall::SetOwner { token, owner } => args.address("token", token).address("owner", owner),
        };
        args.encode()
    }

    /// Decodes a call from its handler and argument map. Refuses unknown handlers, unknown,
    /// missing or mistyped arguments; the metadata rules are checked by execution (E1409).
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        let token = || args.address("token");
        let call = match handler {
            "create" => {
                args.only(&["name", "symbol", "decimals", "mintable", "max_supply", "initial_supply"])?;
                TokenCall::Create(NewToken {
                    name: args.text("name")?.to_owned(),
                    symbol: args.text("symbol")?.to_owned(),
                    decimals: args.uint("decimals")?,
                    initial_supply: args.u128("initial_supply")?,
                    max_supply: args.opt_u128("max_supply")?,
                    mintable: args.bool("mintable")?,
                })
            }
            "transfer" | "mint" => {
                args.only(&["to", "token", "amount"])?;
                let (token, to, amount) = (token()?, args.address("to")?, args.u128("amount")?);
                match handler {
                    "transfer" => TokenCall::Transfer { token, to, amount },
                    _ => TokenCall::Mint { token, to, amount },
                }
            }
            "approve" => {
                args.only(&["token", "amount", "spender"])?;
                TokenCall::Approve { token: token()?, spender: args.address("spender")?, amount: args.u128("amount")? }
            }
            "transfer_from" => {
                args.only(&["to", "from", "token", "amount"])?;
                TokenCall::TransferFrom {
                    token: token()?,
                    from: args.address("from")?,
                    to: args.address("to")?,
                    amount: args.u128("amount")?,
                }
            }
            "burn" => {
                args.only(&["token", "amount"])?;
                TokenCall::Burn { token: token()?, amount: args.u128("amount")? }
            }
            "freeze" | "unfreeze" | "balance" => {
                args.only(&["token", "account"])?;
                let (token, account) = (token()?, args.address("account")?);
                match handler {
                    "freeze" => TokenCall::Freeze { token, account },
                    "unfreeze" => TokenCall::Unfreeze { token, account },
                    _ => TokenCall::Balance { token, account },
                }
            }
            "set_owner" => {
                args.only(&["owner", "token"])?;
                TokenCall::SetOwner { token: token()?, owner: args.address("owner")? }
            }
            other => return Err(SystemCallError::unknown_handler::<Self>(other)),
        };
        Ok(call)
    }

    /// What a call costs before it runs: `(cycles, cells)`, known before any state is read.
    ///
    /// A balance that becomes non-zero or zero adds the token to its holder's listing or removes it
    /// (`drover_state::token::holdings_listing`): each call pays [`LISTING_CYCLES`] and
    /// [`LISTING_CELLS`] for every balance it can so change (two for a transfer, one for a mint, a
    /// burn or a create).
    fn cost(&self) -> (u64, u64) {
        let listings = |n: u64| (n * LISTING_CYCLES, n * LISTING_CELLS);
        let plus = |(cycles, cells): (u64, u64), (c, k): (u64, u64)| (cycles + c, cells + k);
        match self {
            TokenCall::Create(new) => plus(
                (CREATE_CYCLES, RECORD_CELLS + (new.name.len() + new.symbol.len()) as u64 + ENTRY_CELLS),
                listings(1),
            ),
            TokenCall::Transfer { .. } => plus((TRANSFER_CYCLES, 2 * ENTRY_CELLS), listings(2)),
            TokenCall::TransferFrom { .. } => plus((TRANSFER_FROM_CYCLES, 3 * ENTRY_CELLS), listings(2)),
            TokenCall::Approve { .. } => (APPROVE_CYCLES, ENTRY_CELLS),
            TokenCall::Mint { .. } | TokenCall::Burn { .. } => plus((SUPPLY_CYCLES, ENTRY_CELLS), listings(1)),
            TokenCall::Freeze { .. } | TokenCall::Unfreeze { .. } | TokenCall::SetOwner { .. } => {
                (ADMIN_CYCLES, ENTRY_CELLS)
            }
            TokenCall::Balance { .. } => (BALANCE_CYCLES, 0),
        }
    }

    fn takes_value(&self) -> bool {
        false
    }

    fn writes(&self) -> bool {
        !matches!(self, TokenCall::Balance { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::ArgsError;

    fn calls() -> Vec<TokenCall> {
        let (token, a, b) = (Address([1; 20]), Address([2; 20]), Address([3; 20]));
        let new = NewToken {
            name: "Gold".into(),
            symbol: "GLD".into(),
            decimals: 18,
            initial_supply: 1 << 100,
            max_supply: Some(u128::MAX),
            mintable: true,
        };
        vec![
            TokenCall::Create(new.clone()),
            TokenCall::Create(NewToken { max_supply: None, ..new }),
            TokenCall::Transfer { token, to: a, amount: 5 },
            TokenCall::Approve { token, spender: a, amount: 0 },
            TokenCall::TransferFrom { token, from: a, to: b, amount: u128::MAX },
            TokenCall::Mint { token, to: b, amount: 1 },
            TokenCall::Burn { token, amount: 9 },
            TokenCall::Freeze { token, account: a },
            TokenCall::Unfreeze { token, account: a },
            TokenCall::SetOwner { token, owner: b },
            TokenCall::Balance { token, account: b },
        ]
    }

    #[test]
    fn every_call_round_trips_through_its_message() {
        for call in calls() {
            let message = call.message();
            assert!(TokenCall::HANDLERS.contains(&message.handler.as_str()));
            assert_eq!(TokenCall::decode(&message.handler, &message.payload), Ok(call));
        }
    }

    #[test]
    fn unknown_handlers_and_foreign_arguments_are_refused() {
        let transfer = TokenCall::Transfer { token: Address([1; 20]), to: Address([2; 20]), amount: 1 }.message();
        assert!(matches!(TokenCall::decode("steal", &transfer.payload), Err(SystemCallError::Handler { .. })));
        // A transfer's arguments do not make a burn (extra "to").
        assert!(matches!(
            TokenCall::decode("burn", &transfer.payload),
            Err(SystemCallError::Args(ArgsError::Unknown { .. }))
        ));
        assert!(matches!(
            TokenCall::decode("approve", &transfer.payload),
            Err(SystemCallError::Args(ArgsError::Unknown { .. }))
        ));
        assert!(matches!(TokenCall::decode("transfer", &[0xa0]), Err(SystemCallError::Args(ArgsError::Missing(_)))));
    }

    #[test]
    fn every_argument_missing_or_mistyped_is_refused() {
        for call in calls() {
            let message = call.message();
            for (what, payload) in crate::args::mutations::broken(&message.payload) {
                // An optional key (max_supply) may go missing; nothing else may.
                let optional = what == "max_supply missing";
                let decoded = TokenCall::decode(&message.handler, &payload);
                assert_eq!(decoded.is_ok(), optional, "{} with {what}: {decoded:?}", message.handler);
            }
        }
    }

    #[test]
    fn token_id_is_last20_of_keccak_of_tag_creator_symbol() {
        let creator = Address([0xaa; 20]);
        let digest = keccak256(&[&[0x0c][..], &[0xaa; 20], b"GLD"].concat());
        assert_eq!(token_id(&creator, "GLD").0[..], digest.0[12..]);
        assert_ne!(token_id(&creator, "GLD"), token_id(&creator, "SLV"));
        assert_ne!(token_id(&creator, "GLD"), token_id(&Address([0xab; 20]), "GLD"));
    }

    #[test]
    fn metadata_rules() {
        assert!(check_metadata("Gold", "GLD", 18).is_ok());
        assert!(check_metadata(&"x".repeat(64), &"A".repeat(16), 36).is_ok());
        assert!(check_metadata("", "GLD", 0).is_err());
        assert!(check_metadata(&"x".repeat(65), "GLD", 0).is_err());
        assert!(check_metadata("a\nb", "GLD", 0).is_err());
        assert!(check_metadata("Gold", "", 0).is_err());
        assert!(check_metadata("Gold", "gld", 0).is_err());
        assert!(check_metadata("Gold", "G-D", 0).is_err());
        assert!(check_metadata("Gold", &"A".repeat(17), 0).is_err());
        assert!(check_metadata("Gold", "GLD", 37).is_err());
    }
}

//! Building transactions: what the caller chose, completed from the chain.
//!
//! A [`TxBuilder`] records what the caller fixed (destination, value, payload, limits, and
//! optionally chain id, nonce and fees). Whatever is left open comes from a [`TxContext`]:
//! chain id from `/chain-info`, nonce from `/account` (0 for an address without state), fees
//! from the `/basefee` suggestions. Building is pure ([`TxBuilder::build`] takes the context as
//! a value, so it needs no network); [`TxBuilder::fetch_context`] asks the node only for the
//! values the builder still lacks.
//!
//! Fee rules, per meter (cycles and cells): an unset max fee is the suggested max fee, raised to
//! the tip if a larger tip was set; an unset tip is the suggested tip, capped at the max fee. A
//! tip above the max fee is refused, as is a transaction whose worst-case cost overflows.
//!
//! Limits: what a constructor or the caller sets, else what the node's simulation of the
//! transaction suggests ([`TxBuilder::estimate`]: what it used plus a margin). A builder whose
//! limits are still open does not build ([`BuildError::LimitsOpen`]): no guess of ours can fit
//! an actor call, and one too low fails on chain while one too high holds a block's room.
//! [`TxBuilder::prepare`] does the whole round (context, simulation, signature) in one call.

use crate::{Client, ClientError, Wallet};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, Transaction,
    api::{BasefeeInfo, SimulateRequest, SimulationInfo},
    governance::{GOVERNANCE_ADDRESS, GovernanceCall},
    job::{JOB_DISPATCHER_ADDRESS, JobCall},
    params::{TRANSFER_CYCLES, system_call_limits},
    runner::{RUNNER_REGISTRY_ADDRESS, RegistryCall},
    secrets::{SECRETS_ADDRESS, SecretCall},
    storage::{RELAY_REGISTRY_ADDRESS, RelayCall, STORAGE_MANAGER_ADDRESS, StorageCall},
    token::{TOKENS_ADDRESS, TokenCall},
};

/// Fee values to fall back on, in base units per cycle and per cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeeSuggestion {
    /// Max fee per cycle to use when the builder sets none.
    pub max_fee_per_cycle: u128,
    /// Max fee per cell to use when the builder sets none.
    pub max_fee_per_cell: u128,
    /// Tip per cycle to use when the builder sets none (capped at the max fee).
    pub tip_per_cycle: u128,
    /// Tip per cell to use when the builder sets none (capped at the max fee).
    pub tip_per_cell: u128,
}

/// A `/basefee` field that is not a decimal amount.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("basefee field {field} is not a decimal amount: {value:?}")]
pub struct BasefeeFieldError {
    /// Name of the `/basefee` field.
    pub field: &'static str,
    /// The text it held.
    pub value: String,
}

impl FeeSuggestion {
    /// The suggested max fees and tips of a `/basefee` answer.
    pub fn from_basefee(info: &BasefeeInfo) -> Result<Self, BasefeeFieldError> {
        let parse = |field: &'static str, value: &str| {
            // `u128::from_str` takes a leading `+`; the API's decimal strings never carry one.
            let parsed = if value.starts_with('+') { None } else { value.parse::<u128>().ok() };
            parsed.ok_or_else(|| BasefeeFieldError { field, value: value.to_owned() })
        };
        Ok(Self {
            max_fee_per_cycle: parse("suggested_max_fee_per_cycle", &info.suggested_max_fee_per_cycle)?,
            max_fee_per_cell: parse("suggested_max_fee_per_cell", &info.suggested_max_fee_per_cell)?,
            tip_per_cycle: parse("suggested_tip_per_cycle", &info.suggested_tip_per_cycle)?,
            tip_per_cell: parse("suggested_tip_per_cell", &info.suggested_tip_per_cell)?,
        })
    }
}

/// The chain's values for everything a builder may leave open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxContext {
    /// The network's chain id.
    pub chain_id: u64,
    /// The sender's next nonce.
    pub nonce: u64,
    /// Fee values for the fee fields the builder leaves unset.
    pub fees: FeeSuggestion,
}

/// Why a transaction could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A tip, set or suggested, is above the max fee of its meter.
    #[error("tip per {meter} ({tip}) is above the max fee per {meter} ({max_fee})")]
    TipAboveMaxFee {
        /// `cycle` or `cell`.
        meter: &'static str,
        /// The tip per unit of that meter.
        tip: u128,
        /// The max fee per unit of that meter.
        max_fee: u128,
    },
    /// The transaction's worst-case cost, value plus maximum fees, does not fit in a `u128`.
    #[error("value plus maximum fees overflows a 128-bit amount")]
    CostOverflow,
    /// A limit is neither set nor sized by a simulation ([`TxBuilder::estimate`]).
    #[error("the {meter} limit is open: set it, or size it with a simulation (TxBuilder::estimate or prepare)")]
    LimitsOpen {
        /// `cycles` or `cells`.
        meter: &'static str,
    },
}

/// Why [`TxBuilder::estimate`] could not size a transaction's limits.
#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    /// The transaction cannot be built (its fees).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The node refused the simulation (the transaction is invalid) or did not answer.
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// A transaction under construction. See the module documentation for the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxBuilder {
    to: Option<Address>,
    value: u128,
    payload: Vec<u8>,
    cycles_limit: Option<u64>,
    cells_limit: Option<u64>,
    chain_id: Option<u64>,
    nonce: Option<u64>,
    max_fee_per_cycle: Option<u128>,
    max_fee_per_cell: Option<u128>,
    tip_per_cycle: Option<u128>,
    tip_per_cell: Option<u128>,
}

/// One meter's (max fee, tip) from what was set and what is suggested.
fn meter_fees(
    meter: &'static str,
    max_fee: Option<u128>,
    tip: Option<u128>,
    suggested_max_fee: u128,
    suggested_tip: u128,
) -> Result<(u128, u128), BuildError> {
    let max_fee = max_fee.unwrap_or_else(|| suggested_max_fee.max(tip.unwrap_or(0)));
    let tip = tip.unwrap_or_else(|| suggested_tip.min(max_fee));
    if tip > max_fee {
        return Err(BuildError::TipAboveMaxFee { meter, tip, max_fee });
    }
    Ok((max_fee, tip))
}

impl TxBuilder {
    /// A value transfer to an account: empty payload, [`TRANSFER_CYCLES`] cycles, no cells.
    pub fn transfer(to: Address, value: u128) -> Self {
        Self::message(Some(to), value, Vec::new()).cycles_limit(TRANSFER_CYCLES).cells_limit(0)
    }

    /// A call of the tokens system actor, with limits that cover exactly its cost: the
    /// intrinsic cost of its payload plus the operation's ([`SystemCall::cost`]).
    pub fn token(call: &TokenCall) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.cost());
        Self::message(Some(TOKENS_ADDRESS), 0, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the runner registry carrying `value` (a stake or a delegation), with limits that
    /// cover exactly its cost.
    pub fn registry(call: &RegistryCall, value: u128) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.max_cost());
        Self::message(Some(RUNNER_REGISTRY_ADDRESS), value, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the library actor, with limits that cover its cost.
    pub fn library(call: &drover_types::library::LibraryCall) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.cost());
        Self::message(Some(drover_types::library::LIBRARY_ADDRESS), 0, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the secrets actor, with limits that cover its cost.
    pub fn secrets(call: &SecretCall) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.cost());
        Self::message(Some(SECRETS_ADDRESS), 0, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the governance actor carrying `value` (a lock or a deposit), with limits that
    /// cover its cost.
    pub fn governance(call: &GovernanceCall, value: u128) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.max_cost());
        Self::message(Some(GOVERNANCE_ADDRESS), value, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the job dispatcher carrying `value` (a submit's escrow), with limits that cover
    /// the most it can cost.
    pub fn job(call: &JobCall, value: u128) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.max_cost());
        Self::message(Some(JOB_DISPATCHER_ADDRESS), value, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the storage manager carrying `value` (a creation's fee and first deposit, or a
    /// deposit), with limits that cover its cost.
    pub fn storage(call: &StorageCall, value: u128) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.cost());
        Self::message(Some(STORAGE_MANAGER_ADDRESS), value, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A call of the relay registry carrying `value` (a registration's stake, or stake added by
    /// an update), with limits that cover its cost.
    pub fn relay(call: &RelayCall, value: u128) -> Self {
        let payload = call.message().encode();
        let (cycles, cells) = system_call_limits(payload.len(), call.cost());
        Self::message(Some(RELAY_REGISTRY_ADDRESS), value, payload).cycles_limit(cycles).cells_limit(cells)
    }

    /// A message to `to` (an actor or system actor), or a deploy when `to` is `None`, with an
    /// encoded payload. Limits start open: set them, or let [`TxBuilder::estimate`] size them.
    pub fn message(to: Option<Address>, value: u128, payload: Vec<u8>) -> Self {
        Self {
            to,
            value,
            payload,
            cycles_limit: None,
            cells_limit: None,
            chain_id: None,
            nonce: None,
            max_fee_per_cycle: None,
            max_fee_per_cell: None,
            tip_per_cycle: None,
            tip_per_cell: None,
        }
    }

    /// Sets the most cycles the transaction may use.
    pub fn cycles_limit(mut self, cycles: u64) -> Self {
        self.cycles_limit = Some(cycles);
        self
    }

    /// Sets the most cells (bytes written to state) the transaction may use.
    pub fn cells_limit(mut self, cells: u64) -> Self {
        self.cells_limit = Some(cells);
        self
    }

    /// Fixes the chain id instead of taking the node's.
    pub fn chain_id(mut self, chain_id: u64) -> Self {
        self.chain_id = Some(chain_id);
        self
    }

    /// Fixes the nonce instead of taking the sender's next one.
    pub fn nonce(mut self, nonce: u64) -> Self {
        self.nonce = Some(nonce);
        self
    }

    /// Fixes the max fee per cycle, in base units.
    pub fn max_fee_per_cycle(mut self, fee: u128) -> Self {
        self.max_fee_per_cycle = Some(fee);
        self
    }

    /// Fixes the max fee per cell, in base units.
    pub fn max_fee_per_cell(mut self, fee: u128) -> Self {
        self.max_fee_per_cell = Some(fee);
        self
    }

    /// Fixes the tip per cycle, in base units.
    pub fn tip_per_cycle(mut self, tip: u128) -> Self {
        self.tip_per_cycle = Some(tip);
        self
    }

    /// Fixes the tip per cell, in base units.
    pub fn tip_per_cell(mut self, tip: u128) -> Self {
        self.tip_per_cell = Some(tip);
        self
    }

    /// Whether building needs the node's fee suggestions (some fee field is unset).
    fn needs_fees(&self) -> bool {
        [self.max_fee_per_cycle, self.max_fee_per_cell, self.tip_per_cycle, self.tip_per_cell].contains(&None)
    }

    /// Whether both limits are set (by a constructor, the caller or an estimate).
    pub fn limits_set(&self) -> bool {
        self.cycles_limit.is_some() && self.cells_limit.is_some()
    }

    /// The `POST /simulate` request for this transaction sent by `sender`, its fees and nonce
    /// as [`TxBuilder::build`] gives them, its open limits left for the node to fill in.
    pub fn simulate_request(&self, sender: Address, context: &TxContext) -> Result<SimulateRequest, BuildError> {
        // The request carries the builder's own limits, open or not: these only let it build.
        let tx = self.build_with_limits(context, (self.cycles_limit.unwrap_or(0), self.cells_limit.unwrap_or(0)))?;
        Ok(SimulateRequest {
            transaction: None,
            from: Some(sender),
            to: tx.to,
            value: Some(tx.value),
            payload: Some(tx.payload),
            nonce: Some(tx.nonce),
            cycles_limit: self.cycles_limit,
            cells_limit: self.cells_limit,
            max_fee_per_cycle: Some(tx.max_fee_per_cycle),
            max_fee_per_cell: Some(tx.max_fee_per_cell),
            tip_per_cycle: Some(tx.tip_per_cycle),
            tip_per_cell: Some(tx.tip_per_cell),
            trace: None,
        })
    }

    /// Sets the limits left open to those `simulation` suggests.
    pub fn limits_from(mut self, simulation: &SimulationInfo) -> Self {
        self.cycles_limit.get_or_insert(simulation.suggested_cycles_limit);
        self.cells_limit.get_or_insert(simulation.suggested_cells_limit);
        self
    }

    /// Sizes the limits left open from the node's simulation of this transaction sent by
    /// `sender` (`POST /simulate`); answers the builder and the simulation, whose status says
    /// whether the transaction would succeed. A builder whose limits are set is returned as is,
    /// with no simulation.
    pub async fn estimate(
        self,
        client: &Client,
        sender: Address,
        context: &TxContext,
    ) -> Result<(Self, Option<SimulationInfo>), EstimateError> {
        if self.limits_set() {
            return Ok((self, None));
        }
        let simulation = client.simulate(&self.simulate_request(sender, context)?).await?;
        Ok((self.limits_from(&simulation), Some(simulation)))
    }

    /// Fills in what this builder leaves open from the node (chain id, nonce, fees, then the
    /// limits from a simulation when they are open) and signs it with `wallet`: the transaction,
    /// and the simulation when one sized it (its status says whether the transaction would
    /// succeed; a caller decides whether to send one that would not).
    pub async fn prepare(
        self,
        client: &Client,
        wallet: &Wallet,
    ) -> Result<(Transaction, Option<SimulationInfo>), EstimateError> {
        let sender = wallet.address();
        let context = self.fetch_context(client, sender).await?;
        let (sized, simulation) = self.estimate(client, sender, &context).await?;
        Ok((sized.sign(&context, wallet)?, simulation))
    }

    /// The unsigned transaction, with unset fields taken from `context`; its limits must be set
    /// (by a constructor, the caller or [`TxBuilder::estimate`]).
    pub fn build(&self, context: &TxContext) -> Result<Transaction, BuildError> {
        let cycles = self.cycles_limit.ok_or(BuildError::LimitsOpen { meter: "cycles" })?;
        let cells = self.cells_limit.ok_or(BuildError::LimitsOpen { meter: "cells" })?;
        self.build_with_limits(context, (cycles, cells))
    }

    fn build_with_limits(
        &self,
        context: &TxContext,
        (cycles_limit, cells_limit): (u64, u64),
    ) -> Result<Transaction, BuildError> {
        let fees = &context.fees;
        let (max_fee_per_cycle, tip_per_cycle) = meter_fees(
            "cycle",
            self.max_fee_per_cycle,
            self.tip_per_cycle,
            fees.max_fee_per_cycle,
            fees.tip_per_cycle,
        )?;
        let (max_fee_per_cell, tip_per_cell) =
            meter_fees("cell", self.max_fee_per_cell, self.tip_per_cell, fees.max_fee_per_cell, fees.tip_per_cell)?;
        let tx = Transaction {
            chain_id: self.chain_id.unwrap_or(context.chain_id),
            nonce: self.nonce.unwrap_or(context.nonce),
            to: self.to,
            value: self.value,
            cycles_limit,
            cells_limit,
            max_fee_per_cycle,
            max_fee_per_cell,
            tip_per_cycle,
            tip_per_cell,
            payload: self.payload.clone(),
            signature: None,
        };
        tx.max_cost().ok_or(BuildError::CostOverflow)?;
        Ok(tx)
    }

    /// The transaction built from `context` and signed by `wallet`.
    pub fn sign(&self, context: &TxContext, wallet: &Wallet) -> Result<Transaction, BuildError> {
        Ok(wallet.sign(self.build(context)?))
    }

    /// Asks the node for the values this builder leaves open (concurrently, and only those),
    /// for a transaction sent by `sender`. Fields the builder fixes keep their zero default in
    /// the returned context; [`TxBuilder::build`] ignores them.
    pub async fn fetch_context(&self, client: &Client, sender: Address) -> Result<TxContext, ClientError> {
        let chain_id = async {
            match self.chain_id {
                Some(_) => Ok(0),
                None => client.chain_info().await.map(|info| info.chain_id),
            }
        };
        let nonce = async {
            match self.nonce {
                Some(_) => Ok(0),
                None => client.account(&sender).await.map(|account| account.map_or(0, |a| a.nonce)),
            }
        };
        let fees =
            async { if self.needs_fees() { client.fee_suggestion().await } else { Ok(FeeSuggestion::default()) } };
        let (chain_id, nonce, fees) = tokio::try_join!(chain_id, nonce, fees)?;
        Ok(TxContext { chain_id, nonce, fees })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO: Address = Address([0x11; 20]);

    fn context() -> TxContext {
        TxContext {
            chain_id: 100,
            nonce: 7,
            fees: FeeSuggestion { max_fee_per_cycle: 20, max_fee_per_cell: 4, tip_per_cycle: 2, tip_per_cell: 1 },
        }
    }

    fn basefee(max_cycle: &str, max_cell: &str, tip_cycle: &str, tip_cell: &str) -> BasefeeInfo {
        BasefeeInfo {
            basefee_cycle: "7".into(),
            basefee_cell: "1".into(),
            suggested_tip_per_cycle: tip_cycle.into(),
            suggested_tip_per_cell: tip_cell.into(),
            suggested_max_fee_per_cycle: max_cycle.into(),
            suggested_max_fee_per_cell: max_cell.into(),
        }
    }

    #[test]
    fn fee_suggestion_parses_the_basefee_record() {
        let big = u128::MAX.to_string();
        assert_eq!(
            FeeSuggestion::from_basefee(&basefee("16", &big, "2", "0")),
            Ok(FeeSuggestion { max_fee_per_cycle: 16, max_fee_per_cell: u128::MAX, tip_per_cycle: 2, tip_per_cell: 0 })
        );
        for (bad, field) in [
            (basefee("", "1", "1", "1"), "suggested_max_fee_per_cycle"),
            (basefee("1", "1.5", "1", "1"), "suggested_max_fee_per_cell"),
            (basefee("1", "1", "-1", "1"), "suggested_tip_per_cycle"),
            (basefee("1", "1", "1", "+1"), "suggested_tip_per_cell"),
            (basefee(&format!("{big}0"), "1", "1", "1"), "suggested_max_fee_per_cycle"),
            (basefee(" 1", "1", "1", "1"), "suggested_max_fee_per_cycle"),
        ] {
            assert_eq!(FeeSuggestion::from_basefee(&bad).map_err(|e| e.field), Err(field));
        }
    }

    #[test]
    fn transfer_takes_everything_open_from_the_context() {
        let tx = TxBuilder::transfer(TO, 5).build(&context()).unwrap();
        assert_eq!(
            tx,
            Transaction {
                chain_id: 100,
                nonce: 7,
                to: Some(TO),
                value: 5,
                cycles_limit: TRANSFER_CYCLES,
                cells_limit: 0,
                max_fee_per_cycle: 20,
                max_fee_per_cell: 4,
                tip_per_cycle: 2,
                tip_per_cell: 1,
                payload: Vec::new(),
                signature: None,
            }
        );
        assert_eq!(tx.max_cost(), Some(5 + 21_000 * 20));
    }

    #[test]
    fn reproduces_the_whitepaper_transfer() {
        let tx = TxBuilder::transfer(TO, 1)
            .chain_id(1)
            .nonce(0)
            .max_fee_per_cycle(10)
            .max_fee_per_cell(2)
            .tip_per_cycle(1)
            .tip_per_cell(0)
            .build(&TxContext::default())
            .unwrap();
        assert_eq!(
            hex::encode(tx.encode()),
            "8d010054111111111111111111111111111111111111111101195208000a020100f640f6"
        );
    }

    #[test]
    fn set_values_win_over_the_context() {
        let tx = TxBuilder::message(None, 0, vec![1, 2, 3])
            .chain_id(1)
            .nonce(0)
            .cycles_limit(1_000_000)
            .cells_limit(500)
            .max_fee_per_cycle(50)
            .tip_per_cell(3)
            .build(&context())
            .unwrap();
        assert_eq!((tx.chain_id, tx.nonce, tx.to), (1, 0, None));
        assert_eq!((tx.cycles_limit, tx.cells_limit), (1_000_000, 500));
        assert_eq!((tx.max_fee_per_cycle, tx.tip_per_cycle), (50, 2));
        assert_eq!((tx.max_fee_per_cell, tx.tip_per_cell), (4, 3));
        assert_eq!(tx.payload, vec![1, 2, 3]);
    }

    #[test]
    fn tips_and_max_fees_stay_consistent() {
        // A max fee below the suggested tip caps the tip.
        let tx = TxBuilder::transfer(TO, 0).max_fee_per_cycle(1).build(&context()).unwrap();
        assert_eq!((tx.max_fee_per_cycle, tx.tip_per_cycle), (1, 1));
        // A tip above the suggested max fee raises the max fee.
        let tx = TxBuilder::transfer(TO, 0).tip_per_cycle(30).tip_per_cell(9).build(&context()).unwrap();
        assert_eq!((tx.max_fee_per_cycle, tx.tip_per_cycle), (30, 30));
        assert_eq!((tx.max_fee_per_cell, tx.tip_per_cell), (9, 9));
        // Both set, tip above max: refused.
        let err = TxBuilder::transfer(TO, 0).max_fee_per_cycle(5).tip_per_cycle(6).build(&context()).unwrap_err();
        assert_eq!(err, BuildError::TipAboveMaxFee { meter: "cycle", tip: 6, max_fee: 5 });
        let err = TxBuilder::transfer(TO, 0).max_fee_per_cell(0).tip_per_cell(1).build(&context()).unwrap_err();
        assert_eq!(err, BuildError::TipAboveMaxFee { meter: "cell", tip: 1, max_fee: 0 });
        assert_eq!(err.to_string(), "tip per cell (1) is above the max fee per cell (0)");
    }

    #[test]
    fn refuses_overflowing_costs() {
        let err = TxBuilder::transfer(TO, u128::MAX).build(&context()).unwrap_err();
        assert_eq!(err, BuildError::CostOverflow);
        let err = TxBuilder::transfer(TO, 0).max_fee_per_cycle(u128::MAX).build(&context()).unwrap_err();
        assert_eq!(err, BuildError::CostOverflow);
        let err = TxBuilder::transfer(TO, 0).cells_limit(2).max_fee_per_cell(u128::MAX).build(&context());
        assert_eq!(err, Err(BuildError::CostOverflow));
        // The largest value that still fits is fine.
        let fits = u128::MAX - 21_000 * 20;
        assert!(TxBuilder::transfer(TO, fits).build(&context()).is_ok());
    }

    #[test]
    fn open_limits_do_not_build_but_simulate_as_open() {
        let call = TxBuilder::message(Some(TO), 0, vec![1]);
        assert_eq!(call.build(&context()), Err(BuildError::LimitsOpen { meter: "cycles" }));
        assert_eq!(call.clone().cycles_limit(9).build(&context()), Err(BuildError::LimitsOpen { meter: "cells" }));
        // The node fills in what the request leaves open.
        let request = call.simulate_request(TO, &context()).unwrap();
        assert_eq!((request.cycles_limit, request.cells_limit, request.nonce), (None, None, Some(7)));
        let tx = call.cycles_limit(50).cells_limit(6).build(&context()).unwrap();
        assert_eq!((tx.cycles_limit, tx.cells_limit), (50, 6));
    }

    #[test]
    fn needs_fees_only_while_one_is_unset() {
        let builder = TxBuilder::transfer(TO, 0).max_fee_per_cycle(1).max_fee_per_cell(1).tip_per_cycle(0);
        assert!(builder.needs_fees());
        assert!(!builder.tip_per_cell(0).needs_fees());
    }

    #[test]
    fn storage_and_relay_calls_cover_their_cost() {
        use drover_types::{
            payload::Message,
            storage::{RelaySettings, StorageCall},
        };
        let create = StorageCall::Create { name: "photos".into(), relay: TO, public: true, max_size_bytes: 1 << 20 };
        let tx = TxBuilder::storage(&create, 5).build(&context()).unwrap();
        assert_eq!((tx.to, tx.value), (Some(STORAGE_MANAGER_ADDRESS), 5));
        let message = Message::decode(&tx.payload).unwrap();
        assert_eq!(StorageCall::decode(&message.handler, &message.payload), Ok(create.clone()));
        assert_eq!((tx.cycles_limit, tx.cells_limit), system_call_limits(tx.payload.len(), create.cost()));

        let register = RelayCall::Register(RelaySettings {
            endpoint: "http://127.0.0.1:7000".into(),
            capacity_bytes: 1 << 30,
            price_per_byte_block: 1,
            write: true,
            read: true,
            public: true,
        });
        let tx = TxBuilder::relay(&register, 9).build(&context()).unwrap();
        assert_eq!((tx.to, tx.value), (Some(RELAY_REGISTRY_ADDRESS), 9));
        let message = Message::decode(&tx.payload).unwrap();
        assert_eq!(RelayCall::decode(&message.handler, &message.payload), Ok(register.clone()));
        assert_eq!((tx.cycles_limit, tx.cells_limit), system_call_limits(tx.payload.len(), register.cost()));
    }

    #[test]
    fn signs_with_the_wallet() {
        let wallet = Wallet::new(drover_types::SecretKey::dev(1));
        let tx = TxBuilder::transfer(TO, 9).sign(&context(), &wallet).unwrap();
        assert_eq!(tx.recover_sender(), Ok(wallet.address()));
        assert_eq!(tx.nonce, 7);
    }
}

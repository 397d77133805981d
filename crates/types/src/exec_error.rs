//! Execution error codes (E-codes) carried in receipts of failed or reverted transactions.
//!
//! Ranges: E1000–E1099 pre-checks, E1100 static code validation, E1200 VM runtime / host calls,
//! E1300 entitlements, E1400 tokens, E1500 timers and deferred work, E1600 runners and jobs, E1700 governance, E1800 secrets, E1850 libraries,
//! E1900 internal, E1951 storage relays. A receipt carries `{code: "E1005", category, message, fix}`: `category` and
//! `fix` follow from the code, so only the code and the message are stored (the canonical CBOR
//! is `[code, message]`, e.g. `["E1005", "..."]`) and JSON input may leave them out.

use crate::cbor::{self, CborError, Sink, Writer};
use minicbor::decode::Decoder;
use serde::{Deserialize, Serialize};
use std::{fmt, str::FromStr};

macro_rules! exec_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal, $fix:literal;)*) => {
        /// An execution error code.
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum ExecCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ExecCode {
            /// Every code, in numeric order.
            pub const ALL: &'static [ExecCode] = &[$(ExecCode::$variant,)*];

            /// The text form, e.g. `"E1005"`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ExecCode::$variant => concat!("E", $code),)* }
            }

            /// The number after the `E`.
            pub const fn number(self) -> u16 {
                match self { $(ExecCode::$variant => $code,)* }
            }

            /// One line of advice for whoever sent the transaction.
            pub const fn fix(self) -> &'static str {
                match self { $(ExecCode::$variant => $fix,)* }
            }
        }
    };
}

exec_codes! {
    /// E1005: out of cycles.
    OutOfCycles = 1005, "Raise cycles_limit.";
    /// E1006: out of cells.
    OutOfCells = 1006, "Raise cells_limit.";
    /// E1101: the code uses a floating-point instruction or type.
    FloatInstruction = 1101, "Build the actor without floating point (integer or fixed-point arithmetic only).";
    /// E1102: the code imports something other than a known `drover` host function with its exact signature.
    ForbiddenImport = 1102, "Import only the host functions of module `drover` listed in docs/actors.md, with their documented signatures.";
    /// E1103: the code is larger than the deploy limit.
    CodeTooLarge = 1103, "Shrink the module (release build, opt-level \"z\", wasm-opt) below the chain parameter max_code_bytes.";
    /// E1104: the memory declaration is missing, duplicated, not exported as `memory`, 64-bit, shared or above the page limit.
    MemoryDeclaration = 1104, "Declare one 32-bit memory of at most MAX_MEMORY_PAGES pages and export it as `memory`.";
    /// E1105: too many tables, or a table above the element limit.
    TableDeclaration = 1105, "Use at most MAX_TABLES table of at most MAX_TABLE_ELEMENTS elements.";
    /// E1106: too many functions, or a function with too many locals.
    TooManyFunctions = 1106, "Stay within MAX_FUNCTIONS functions and MAX_LOCALS_PER_FUNCTION locals per function.";
    /// E1107: too many globals.
    TooManyGlobals = 1107, "Stay within MAX_GLOBALS globals.";
    /// E1108: the bytes are not a valid WebAssembly module, or use an unsupported proposal (SIMD, memory64, multi-memory).
    InvalidWasm = 1108, "Deploy a valid WebAssembly 1.0 module (plus bulk memory, sign extension, multi-value, reference types).";
    /// E1109: an export or the start section breaks the handler convention.
    HandlerConvention = 1109, "Export handlers as functions of type () -> () with names of at most MAX_HANDLER_NAME_BYTES bytes; use no start function.";
    /// E1110: an actor already exists at the deploy address.
    ActorExists = 1110, "Deploy with another salt (the address is keccak256(sender ‖ salt ‖ keccak256(code)), last 20 bytes).";
    /// E1201: the actor reverted; the receipt's revert_reason says why.
    Reverted = 1201, "Read revert_reason; the actor refused the call.";
    /// E1202: the actor trapped (unreachable, division by zero, out-of-bounds memory access, bad indirect call), or a system actor got arguments it cannot decode.
    WasmTrap = 1202, "Fix the actor, or the input that makes it trap; a system actor's arguments are a canonical CBOR map of the keys its docs list.";
    /// E1203: wasm recursion deeper than MAX_WASM_RECURSION_DEPTH or a value stack above MAX_VALUE_STACK_BYTES.
    StackOverflow = 1203, "Bound the actor's recursion depth.";
    /// E1204: linear memory or a table grown past its limit.
    MemoryLimit = 1204, "Keep the actor's memory within MAX_MEMORY_PAGES pages.";
    /// E1205: the actor exports no such handler.
    HandlerNotFound = 1205, "Call a handler the actor exports (GET /actor/{address} shows the code).";
    /// E1206: a read-only execution attempted a state write.
    ReadOnlyViolation = 1206, "Send a transaction instead of a read, or call a handler that does not write.";
    /// E1207: the handler's result is larger than MAX_RESULT_BYTES.
    ResultTooLarge = 1207, "Return at most MAX_RESULT_BYTES bytes; store larger data and return a key.";
    /// E1208: the handler's input is larger than MAX_PAYLOAD_BYTES.
    PayloadTooLarge = 1208, "Send at most MAX_PAYLOAD_BYTES bytes of payload.";
    /// E1209: a host call got a pointer outside linear memory or an argument above its limit.
    HostCallArgument = 1209, "Pass pointers inside linear memory and sizes within the limits of docs/actors.md.";
    /// E1210: synchronous actor calls nested deeper than MAX_CALL_DEPTH.
    CallDepth = 1210, "Flatten the call chain, or use mailbox messages instead of synchronous calls.";
    /// E1211: the destination of a call or message holds no actor.
    NoActor = 1211, "Call or message an address that holds an actor.";
    /// E1212: the actor's balance cannot cover a transfer or the value of a call or message.
    ActorBalance = 1212, "Fund the actor or lower the amount.";
    /// E1213: the recipient's mailbox cannot take the message (byte capacity reached).
    MailboxFull = 1213, "Wait until the recipient's pending messages are delivered, or send a smaller message.";
    /// E1301: the actor used a capability its manifest does not grant.
    NotEntitled = 1301, "Deploy (or upgrade to) a manifest that lists the entitlement for this host call.";
    /// E1302: the manifest lists an unknown or duplicate entitlement id.
    UnknownEntitlement = 1302, "List each entitlement once, using ids from docs/actors.md.";
    /// E1303: only the actor's owner (its deployer) may upgrade it.
    NotOwner = 1303, "Send the upgrade from the address that deployed the actor.";
    /// E1304: an upgrade's manifest grants an entitlement the actor does not have.
    ManifestWidened = 1304, "An upgrade may only narrow the manifest: list a subset of the current entitlements.";
    /// E1401: no token has this id.
    UnknownToken = 1401, "Use a token id from GET /tokens (0x + 40 hex): last20(keccak256(0x0c ‖ creator ‖ symbol)).";
    /// E1402: the holder's token balance cannot cover the amount.
    TokenBalance = 1402, "Lower the amount to at most the holder's balance (GET /token/{token_id}/balance/{address}).";
    /// E1403: the spender's allowance from the holder cannot cover the amount.
    TokenAllowance = 1403, "Have the holder approve the spender for at least the amount (GET /token/{token_id}/allowance/{owner}/{spender}).";
    /// E1404: only the token's owner may mint, freeze, unfreeze or hand over ownership.
    TokenNotOwner = 1404, "Send the call from the token's owner (GET /token/{token_id} shows it).";
    /// E1405: the token was created without minting rights.
    TokenNotMintable = 1405, "Only a token created with mintable = true can be minted.";
    /// E1406: the supply would pass the token's max_supply (or 2^128-1).
    TokenMaxSupply = 1406, "Keep the supply within max_supply (GET /token/{token_id} shows supply and max_supply).";
    /// E1407: the sender or the recipient is frozen for this token.
    TokenFrozen = 1407, "Ask the token's owner to unfreeze the account.";
    /// E1408: the sender already created a token with this symbol.
    TokenSymbolTaken = 1408, "Pick another symbol: each creator's symbols are unique (the token id is derived from creator and symbol).";
    /// E1409: the name, symbol or decimals break the token rules.
    TokenMetadata = 1409, "Use a name of 1-64 bytes without control characters, a symbol of 1-16 characters A-Z 0-9 and 0-36 decimals.";
    /// E1501: a timer was scheduled at or below the current block height.
    TimerHeight = 1501, "Schedule timers at a height above the current block height.";
    /// E1502: the actor already has `max_pending_timers_per_actor` (a chain parameter) pending timers.
    TooManyTimers = 1502, "Cancel pending timers or wait until they fire.";
    /// E1503: a due timer was dropped because its payer could not cover its maximum fee.
    TimerUnpaid = 1503, "Keep the actor funded for cycles_limit × basefee_cycle plus its cells budget × basefee_cell when its timers fire.";
    /// E1504: a message or a timer attaches more cycles than the chain parameter `max_attached_cycles`.
    AttachedCycles = 1504, "Attach at most max_attached_cycles (GET /governance/params) to a send or a timer_schedule; split larger work over several messages or timers.";
    /// E1601: a runner's stake is below the registry's minimum.
    RunnerStake = 1601, "Register with a value of at least MIN_RUNNER_STAKE base units (docs/runners.md).";
    /// E1602: the sender is already a registered runner.
    RunnerRegistered = 1602, "Use update to change a registered runner, or deregister first.";
    /// E1603: a runner's capabilities break the rules (job types, concurrency).
    RunnerCapabilities = 1603, "Offer 1-16 job types of 1-64 characters a-z 0-9 . _ - (no repeats) and 1-1024 concurrent jobs.";
    /// E1604: the address is not a registered runner (never registered, or deregistered).
    UnknownRunner = 1604, "Name a runner listed by GET /runners/active or GET /runner/{address}.";
    /// E1605: a runner with jobs in progress cannot deregister.
    RunnerBusy = 1605, "Finish or let time out the runner's jobs, then deregister.";
    /// E1606: a delegation of zero, or an undelegation of zero or above what is delegated.
    DelegationAmount = 1606, "Delegate a non-zero value; undelegate at most what GET /account/{address}/delegations shows.";
    /// E1607: nothing has finished unbonding yet.
    NothingToWithdraw = 1607, "Wait until the release height of the unbonding (GET /account/{address}/delegations, GET /runner/{address}).";
    /// E1608: too many unbondings are waiting on one runner or delegation.
    TooManyUnbondings = 1608, "Withdraw the matured unbondings first (at most MAX_PENDING_UNBONDINGS wait at once).";
    /// E1609: a job spec breaks the rules (job type, input size, runners, verification, timeout, callback).
    JobSpec = 1609, "Ask for 1-16 runners, a threshold the mode allows, a timeout of 1-10000 blocks and an input of at most 64 KiB (docs/runners.md).";
    /// E1610: a job's escrow does not cover its runners and its callback.
    JobEscrow = 1610, "Send a value of at least runners × max_price plus the callback's cycles × basefee_cycle + 16384 × basefee_cell.";
    /// E1611: no job has this id.
    UnknownJob = 1611, "Use the id of a submitted job: keccak256(submitter ‖ seq_be8), in the submit's job.submitted event.";
    /// E1612: the job is not in a state that takes this call (ended, or not assigned yet).
    JobNotOpen = 1612, "GET /job/{job_id}/status: results are taken while assigned, cancel before the job ends.";
    /// E1613: the sender is not one of the job's assigned runners.
    NotAssigned = 1613, "Only the runners listed in the job's assigned_runners submit results.";
    /// E1614: this runner already submitted a result for the job.
    ResultSubmitted = 1614, "Each assigned runner submits one result per job.";
    /// E1615: only the job's submitter may cancel it.
    NotSubmitter = 1615, "Send the cancel from the account or actor that submitted the job.";
    /// E1616: a job type has as many runners at one price as its index holds.
    JobTypeFull = 1616, "Ask another price or offer another job type: each job type holds at most MAX_RUNNERS_PER_PRICE runners at one price.";
    /// E1617: a callback was asked for by a submitter that is not an actor.
    CallbackNeedsActor = 1617, "Leave out the callback when submitting from an account; poll GET /job/{job_id}/status instead.";
    /// E1701: a lock or unlock of zero, or an unlock of more than is locked.
    GovernanceAmount = 1701, "Lock a non-zero value; unlock at most what the account has locked.";
    /// E1702: a proposal's deposit is below the proposal_deposit parameter.
    ProposalDeposit = 1702, "Send a value of at least proposal_deposit (GET /governance/params) with the proposal.";
    /// E1703: a proposal's changes or description break the rules (unknown name, value out of bounds, none or too many, description too long).
    ProposalChanges = 1703, "Change 1-16 parameters listed by GET /governance/params, each within its min and max, with a description of at most 1 KiB.";
    /// E1704: no proposal has this id.
    UnknownProposal = 1704, "Use an id from GET /governance/proposals.";
    /// E1705: the proposal no longer takes votes.
    ProposalNotVoting = 1705, "Vote before the proposal's voting_ends_height.";
    /// E1706: the sender has no locked weight.
    NoVotingWeight = 1706, "Lock weight with the governance lock call before voting.";
    /// E1707: the sender already voted on this proposal.
    AlreadyVoted = 1707, "Each account votes once per proposal, with all its locked weight.";
    /// E1708: the proposal cannot be executed now (still voting, in its timelock, or closed).
    ProposalNotExecutable = 1708, "Execute after voting_ends_height (rejected proposals close) and from executable_height (passed ones apply), before they expire.";
    /// E1709: the locked weight is part of a vote still open.
    WeightInVote = 1709, "Unlock after the end of the latest vote the weight was cast in.";
    /// E1710: a proposal's changes would break a relation between parameters that keeps deferred work possible (max_attached_cycles and max_callback_cycles at most a quarter of target_cycles).
    ProposalRelation = 1710, "Change the related parameters together so that max_attached_cycles and max_callback_cycles stay at most target_cycles / 4 (docs/governance.md).";
    /// E1801: a secret's name, readers or envelopes break the rules.
    SecretRules = 1801, "Name secrets with 1-64 characters a-z A-Z 0-9 . _ -, give 1-32 readers and envelopes of at most 4,224 bytes (docs/secrets.md).";
    /// E1802: the owner has no secret of this name.
    UnknownSecret = 1802, "Use a name from GET /secrets/{owner}, or set the secret first.";
    /// E1803: the address is not a reader of the secret.
    NotAReader = 1803, "Revoke one of the readers GET /secrets/{owner} lists.";
    /// E1851: a library name breaks the rules.
    LibraryName = 1851, "Name libraries with 1-64 characters a-z 0-9 . _ - (docs/libraries.md).";
    /// E1852: no such library or version, or it was removed.
    UnknownLibrary = 1852, "Use a publisher, name and version from GET /library/{publisher}/{name} (version 0 runs the latest).";
    /// E1900: internal error.
    Internal = 1900, "Retry later; report the transaction hash if it persists.";
    /// E1951: a relay's stake or settings break the rules.
    RelaySettings = 1951, "Register with a value of at least min_relay_stake, an http(s) endpoint of at most 256 bytes and a capacity of 1 byte to 1 PiB (docs/storage.md).";
    /// E1952: the sender is not a registered relay, or is already one.
    RelayRegistration = 1952, "Register the relay first (or once): GET /ras/relays/public lists registered relays.";
    /// E1953: the relay still serves volumes, or has nothing matured to withdraw.
    RelayBusy = 1953, "Deregister once no volume names the relay; withdraw after unbonding_blocks.";
    /// E1954: the relay cannot take the volume (unknown, unhealthy, not taking writes, or full).
    RelayUnavailable = 1954, "Pick a relay from GET /ras/write-relayers that is healthy with free_bytes above 0.";
    /// E1955: a volume's name or value breaks the rules.
    VolumeRules = 1955, "Name volumes with 1-64 characters a-z 0-9 . _ - and send at least volume_creation_fee with create (docs/storage.md).";
    /// E1956: no such volume, or the sender may not act on it.
    UnknownVolume = 1956, "Use a volume id from GET /ras/volumes; only its owner deletes or undeletes it, only its relay commits.";
    /// E1957: the volume is not in a state that allows the call.
    VolumeState = 1957, "Check the volume's status: undelete only a deleted volume within its grace, reap only a purged one, commit and deposit only to a volume not purged.";
    /// E1958: a volume of that name already exists for the sender.
    VolumeExists = 1958, "Pick another name, or reap the purged volume first.";
}

impl ExecCode {
    /// The range the code belongs to: `precheck`, `validation`, `runtime`, `entitlement`,
    /// `token`, `timer`, `job`, `governance`, `secrets`, `library`, `storage` or `internal`.
    pub const fn category(self) -> &'static str {
        match self.number() {
            1000..=1099 => "precheck",
            1100..=1199 => "validation",
            1200..=1299 => "runtime",
            1300..=1399 => "entitlement",
            1400..=1499 => "token",
            1500..=1599 => "timer",
            1600..=1699 => "job",
            1700..=1799 => "governance",
            1800..=1849 => "secrets",
            1850..=1899 => "library",
            1951..=1999 => "storage",
            _ => "internal",
        }
    }
}

impl fmt::Display for ExecCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a known E-code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown execution error code {0:?}")]
pub struct UnknownExecCode(pub String);

impl FromStr for ExecCode {
    type Err = UnknownExecCode;

    /// Parses the exact text form (`"E1005"`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ExecCode::ALL.iter().find(|code| code.as_str() == s).copied().ok_or_else(|| UnknownExecCode(s.to_owned()))
    }
}

impl Serialize for ExecCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ExecCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// An execution error as carried in a receipt.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ExecError {
    /// Which error it is; decides `category` and `fix`.
    pub code: ExecCode,
    /// What happened in this instance.
    pub message: String,
}

/// The JSON form: `category` and `fix` are derived from the code on output.
#[derive(Serialize)]
struct ExecErrorOut<'a> {
    code: ExecCode,
    category: &'static str,
    message: &'a str,
    fix: &'static str,
}

/// The JSON form on input: `category` and `fix`, if present, are ignored (the code decides them).
#[derive(Deserialize)]
struct ExecErrorIn {
    code: ExecCode,
    message: String,
}

impl Serialize for ExecError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ExecErrorOut { code: self.code, category: self.code.category(), message: &self.message, fix: self.code.fix() }
            .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ExecError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let ExecErrorIn { code, message } = ExecErrorIn::deserialize(d)?;
        Ok(ExecError { code, message })
    }
}

impl ExecError {
    /// An error with `code` and this instance's `message`.
    pub fn new(code: ExecCode, message: impl Into<String>) -> Self {
        ExecError { code, message: message.into() }
    }

    /// Canonical CBOR `[code, message]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.message.len() + 16);
        self.write(&mut w);
        w.into_inner()
    }

    /// Strict decode of `[code text, message text]`.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    pub(crate) fn write<S: Sink>(&self, w: &mut Writer<S>) {
        w.array(2).text(self.code.as_str()).text(&self.message);
    }

    pub(crate) fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        cbor::expect_array(d, 2)?;
        let at = d.position();
        let code = d.str()?.parse().map_err(|e: UnknownExecCode| CborError::malformed(format!("{e} at byte {at}")))?;
        let message = d.str()?.to_owned();
        Ok(ExecError { code, message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_parse() {
        for pair in ExecCode::ALL.windows(2) {
            assert!(pair[0].number() < pair[1].number());
        }
        for code in ExecCode::ALL {
            assert_eq!(code.as_str(), format!("E{}", code.number()));
            assert_eq!(code.as_str().parse::<ExecCode>(), Ok(*code));
            assert!(!code.fix().is_empty());
        }
        assert_eq!(ExecCode::OutOfCycles.as_str(), "E1005");
        assert_eq!(ExecCode::OutOfCells.as_str(), "E1006");
        assert_eq!(ExecCode::OutOfCycles.category(), "precheck");
        assert_eq!(ExecCode::Internal.category(), "internal");
        for bad in ["", "E1099", "e1005", "1005", "E1005 ", "E01005"] {
            assert!(bad.parse::<ExecCode>().is_err(), "{bad}");
        }
    }

    #[test]
    fn json_carries_category_and_fix() {
        let error = ExecError::new(ExecCode::OutOfCycles, "used 21000 of 21000 cycles");
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "E1005",
                "category": "precheck",
                "message": "used 21000 of 21000 cycles",
                "fix": "Raise cycles_limit.",
            })
        );
        assert_eq!(serde_json::from_value::<ExecError>(json).unwrap(), error);
        let minimal: ExecError = serde_json::from_str(r#"{"code":"E1006","message":"m"}"#).unwrap();
        assert_eq!(minimal, ExecError::new(ExecCode::OutOfCells, "m"));
        assert!(serde_json::from_str::<ExecError>(r#"{"code":"E9999","message":"m"}"#).is_err());
        assert!(serde_json::from_str::<ExecError>(r#"{"code":"E1006"}"#).is_err());
    }

    #[test]
    fn cbor_round_trip_and_rejections() {
        let error = ExecError::new(ExecCode::Internal, "boom");
        let bytes = error.encode();
        assert_eq!(hex::encode(&bytes), "8265453139303064626f6f6d");
        assert_eq!(ExecError::decode(&bytes), Ok(error));
        for bad in ["8265453939393960", "81654531393030", "820060", "a0"] {
            let bytes = hex::decode(bad).unwrap();
            assert!(matches!(ExecError::decode(&bytes), Err(CborError::Malformed(_))), "{bad}");
        }
    }
}

//! The entitlement registry and an actor's granted set.
//!
//! A manifest lists entitlement ids; each host capability that acts on the world requires one.
//! The registry is a constant table so that every node refuses the same unknown ids. Reading the
//! actor's own context (caller, height, balances, input) needs no entitlement: it changes nothing
//! and reveals only public state.

use crate::error::VmError;
use drover_types::chain_params::ChainParams;

/// One entitlement: a bit in [`Entitlements`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entitlement {
    /// `storage.kv`: storage get, set, remove and iteration.
    StorageKv,
    /// `events.emit`: event emission.
    EventsEmit,
    /// `econ.transfer`: transfers and value attached to calls and messages.
    EconTransfer,
    /// `mailbox.send`: messages to other actors' mailboxes.
    MailboxSend,
    /// `timer.schedule`: scheduling and cancelling timers.
    TimerSchedule,
    /// `actor.call`: synchronous calls to other actors.
    ActorCall,
    /// `job.submit`: job submission to runners (`job_submit`, or `call` to the dispatcher).
    JobSubmit,
    /// `token.use`: `call`s to the native tokens actor (`0x00…0c`), instead of `actor.call`.
    TokenUse,
}

/// Every entitlement id, in the order of their bits.
pub const ENTITLEMENT_REGISTRY: &[(&str, Entitlement)] = &[
    ("storage.kv", Entitlement::StorageKv),
    ("events.emit", Entitlement::EventsEmit),
    ("econ.transfer", Entitlement::EconTransfer),
    ("mailbox.send", Entitlement::MailboxSend),
    ("timer.schedule", Entitlement::TimerSchedule),
    ("actor.call", Entitlement::ActorCall),
    ("job.submit", Entitlement::JobSubmit),
    ("token.use", Entitlement::TokenUse),
];

impl Entitlement {
    /// The manifest id, e.g. `"storage.kv"`.
    pub fn id(self) -> &'static str {
        match self {
            Entitlement::StorageKv => "storage.kv",
            Entitlement::EventsEmit => "events.emit",
            Entitlement::EconTransfer => "econ.transfer",
            Entitlement::MailboxSend => "mailbox.send",
            Entitlement::TimerSchedule => "timer.schedule",
            Entitlement::ActorCall => "actor.call",
            Entitlement::JobSubmit => "job.submit",
            Entitlement::TokenUse => "token.use",
        }
    }

    /// The entitlement of a manifest id, if the registry knows it.
    pub fn from_id(id: &str) -> Option<Entitlement> {
        ENTITLEMENT_REGISTRY.iter().find(|(known, _)| *known == id).map(|(_, e)| *e)
    }

    /// What the entitlement lets an actor do, for the registry's readers.
    pub fn description(self) -> &'static str {
        match self {
            Entitlement::StorageKv => "Read, write, remove and iterate the actor's own key-value storage.",
            Entitlement::EventsEmit => "Emit events (topic and data) into the receipt and the actor's log.",
            Entitlement::EconTransfer => {
                "Move the actor's own balance: transfers, and value attached to calls and messages."
            }
            Entitlement::MailboxSend => "Send messages to other actors' mailboxes, delivered in a later block.",
            Entitlement::TimerSchedule => "Schedule and cancel timers that call the actor back at a later height.",
            Entitlement::ActorCall => "Call other actors' handlers synchronously (not the native tokens actor).",
            Entitlement::JobSubmit => {
                "Submit jobs to off-chain runners with an escrow (job_submit, or call to the dispatcher 0x00…02)."
            }
            Entitlement::TokenUse => {
                "Call the native tokens actor (0x00…0c): hold, approve and move tokens as the actor."
            }
        }
    }

    /// The host functions (module `drover`) that need it.
    pub fn host_functions(self) -> &'static [&'static str] {
        match self {
            Entitlement::StorageKv => &["storage_get", "storage_set", "storage_remove", "storage_next"],
            Entitlement::EventsEmit => &["emit"],
            Entitlement::EconTransfer => &["transfer", "send", "call"],
            Entitlement::MailboxSend => &["send"],
            Entitlement::TimerSchedule => &["timer_schedule", "timer_cancel"],
            Entitlement::ActorCall | Entitlement::TokenUse => &["call"],
            Entitlement::JobSubmit => &["job_submit", "call"],
        }
    }

    /// The limits that bound what it unlocks, by name.
    pub fn params(self) -> Vec<(&'static str, u64)> {
        use crate::limits::*;
        match self {
            Entitlement::StorageKv => vec![
                ("max_storage_key_bytes", MAX_STORAGE_KEY_BYTES as u64),
                ("max_storage_value_bytes", MAX_STORAGE_VALUE_BYTES as u64),
            ],
            Entitlement::EventsEmit => vec![
                ("max_event_topic_bytes", MAX_EVENT_TOPIC_BYTES as u64),
                ("max_event_data_bytes", MAX_EVENT_DATA_BYTES as u64),
            ],
            // A chain parameter: its genesis default here, the live value where the node serves it.
            Entitlement::MailboxSend => vec![
                ("max_payload_bytes", MAX_PAYLOAD_BYTES as u64),
                ("max_attached_cycles", ChainParams::default().max_attached_cycles),
            ],
            Entitlement::TimerSchedule => vec![
                ("max_pending_timers_per_actor", ChainParams::default().max_pending_timers_per_actor),
                ("max_attached_cycles", ChainParams::default().max_attached_cycles),
            ],
            Entitlement::ActorCall | Entitlement::TokenUse => vec![("max_call_depth", u64::from(MAX_CALL_DEPTH))],
            Entitlement::EconTransfer | Entitlement::JobSubmit => Vec::new(),
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of granted entitlements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Entitlements(u32);

impl Entitlements {
    /// The empty set.
    pub const NONE: Entitlements = Entitlements(0);

    /// Every entitlement (for tests and trusted system code).
    pub fn all() -> Entitlements {
        ENTITLEMENT_REGISTRY.iter().fold(Entitlements::NONE, |set, (_, e)| set.with(*e))
    }

    /// This set plus `e`.
    pub fn with(self, e: Entitlement) -> Entitlements {
        Entitlements(self.0 | e.bit())
    }

    /// Whether `e` is in the set.
    pub fn contains(self, e: Entitlement) -> bool {
        self.0 & e.bit() != 0
    }

    /// The entitlements both `self` and `other` grant (what a library runs with).
    pub fn intersection(self, other: Entitlements) -> Entitlements {
        Entitlements(self.0 & other.0)
    }

    /// Whether every entitlement of `self` is in `other` (an upgrade may only narrow).
    pub fn is_subset_of(self, other: Entitlements) -> bool {
        self.0 & !other.0 == 0
    }

    /// The ids, in registry order.
    pub fn ids(self) -> Vec<&'static str> {
        ENTITLEMENT_REGISTRY.iter().filter(|(_, e)| self.contains(*e)).map(|(id, _)| *id).collect()
    }
}

/// Every problem of a manifest's ids, in order: `(position, reason)` for each unknown id and
/// each repeat. Empty exactly when [`validate_manifest`] accepts the ids.
pub fn manifest_problems<S: AsRef<str>>(ids: &[S]) -> Vec<(usize, String)> {
    let mut seen = Entitlements::NONE;
    let mut problems = Vec::new();
    for (position, id) in ids.iter().enumerate() {
        match Entitlement::from_id(id.as_ref()) {
            None => problems.push((position, "not an entitlement of the registry".to_owned())),
            Some(e) if seen.contains(e) => problems.push((position, "listed more than once".to_owned())),
            Some(e) => seen = seen.with(e),
        }
    }
    problems
}

/// Checks a manifest's ids at deploy (E1302 for an unknown or repeated id) and returns the set.
pub fn validate_manifest<S: AsRef<str>>(ids: &[S]) -> Result<Entitlements, VmError> {
    let mut set = Entitlements::NONE;
    for id in ids {
        let id = id.as_ref();
        let e = Entitlement::from_id(id).ok_or_else(|| VmError::UnknownEntitlement(id.into()))?;
        if set.contains(e) {
            return Err(VmError::DuplicateEntitlement(id.into()));
        }
        set = set.with(e);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::exec_error::ExecCode;

    #[test]
    fn registry_ids_round_trip() {
        for (id, e) in ENTITLEMENT_REGISTRY {
            assert_eq!(e.id(), *id);
            assert_eq!(Entitlement::from_id(id), Some(*e));
        }
        assert_eq!(Entitlements::all().ids().len(), ENTITLEMENT_REGISTRY.len());
    }

    #[test]
    fn every_listed_host_function_exists() {
        for (id, e) in ENTITLEMENT_REGISTRY {
            assert!(!e.description().is_empty(), "{id}");
            for name in e.host_functions() {
                assert!(crate::abi::host_function(name).is_some(), "{id} lists unknown host function {name}");
            }
        }
    }

    #[test]
    fn manifest_refuses_unknown_and_duplicate_ids() {
        let set = validate_manifest(&["storage.kv", "timer.schedule"]).unwrap();
        assert!(set.contains(Entitlement::StorageKv));
        assert!(!set.contains(Entitlement::ActorCall));
        assert_eq!(set.ids(), ["storage.kv", "timer.schedule"]);
        assert!(set.is_subset_of(Entitlements::all()));
        assert!(!Entitlements::all().is_subset_of(set));
        let unknown = validate_manifest(&["storage.kv", "storage.everything"]).unwrap_err();
        assert_eq!(unknown.code(), ExecCode::UnknownEntitlement);
        let twice = validate_manifest(&["econ.transfer", "econ.transfer"]).unwrap_err();
        assert_eq!(twice, VmError::DuplicateEntitlement("econ.transfer".into()));
        assert_eq!(validate_manifest::<&str>(&[]).unwrap(), Entitlements::NONE);
        let problems = manifest_problems(&["storage.kv", "nope", "storage.kv", "events.emit"]);
        assert_eq!(problems.iter().map(|(at, _)| *at).collect::<Vec<_>>(), [1, 2]);
        assert!(manifest_problems(&["storage.kv", "token.use"]).is_empty());
    }
}

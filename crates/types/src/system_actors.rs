//! The one list of the native system actors (`system_actors!`), from which everything that
//! goes through every system actor is derived.
//!
//! A system actor lives at a reserved address (`0x00…01`–`0x00…0f`) and is served by the
//! executor itself; its calls are one enum of this crate implementing [`SystemCall`]
//! (`crate::system_call`: where it lives, its name and handlers, its argument maps both ways,
//! what a call costs before it runs and the rules its value and state follow).
//!
//! The list is given once, below. From it come [`visit`] (the call type of the actor at an
//! address: how the validity rule checks a call's form, and how the executor dispatches and
//! prefetches) and [`visit_all`] (every call type in address order: the docs' list, the fuzz
//! round-trip). A pass over the system actors is a [`Visit`] implemented for every call type its
//! work needs: the validity rule's pass needs only [`SystemCall`], the executor's needs its own
//! handlers trait as well, so a call type added to the list without handlers does not build.
//! Adding a system actor is: its call enum with its [`SystemCall`] implementation, one entry in
//! the list, its handlers in `drover_execution`, and a row in `docs/protocol.md` ("System
//! actors", checked by a test).

use crate::Address;
use crate::governance::GovernanceCall;
use crate::job::JobCall;
use crate::library::LibraryCall;
use crate::runner::RegistryCall;
use crate::secrets::SecretCall;
use crate::storage::{RelayCall, StorageCall};
use crate::system_call::SystemCall;
use crate::token::TokenCall;

/// One pass over the system actors: what each [`Visit`] of it answers.
pub trait SystemActorVisitor {
    /// What visiting one call type answers.
    type Output;
}

/// What a pass does with the call type `C`.
pub trait Visit<C: SystemCall>: SystemActorVisitor {
    /// Does the pass's work for `C`.
    fn visit(&mut self) -> Self::Output;
}

/// What a pass does with one decoded call of the call type `C`.
pub trait VisitCall<C: SystemCall>: SystemActorVisitor {
    /// Does the pass's work for `call`.
    fn visit_call(&mut self, call: C) -> Self::Output;
}

/// The list of system actors, given once: generates the bound of a pass over all of them, the
/// two ways to run one, and [`AnySystemCall`], a decoded call of any of them.
macro_rules! system_actors {
    ($($call:ident),+ $(,)?) => {
        /// A pass that visits every system actor: implemented by any visitor that implements
        /// [`Visit`] for every call type of the list.
        pub trait EverySystemActor: $(Visit<$call> +)+ {}

        impl<V: $(Visit<$call> +)+> EverySystemActor for V {}

        /// A pass over a decoded call of any system actor: implemented by any visitor that
        /// implements [`VisitCall`] for every call type of the list.
        pub trait EverySystemCall: $(VisitCall<$call> +)+ {}

        impl<V: $(VisitCall<$call> +)+> EverySystemCall for V {}

        /// Visits the call type of the system actor at `address`; `None` when no system actor
        /// lives there.
        pub fn visit<V: EverySystemActor>(address: &Address, visitor: &mut V) -> Option<V::Output> {
            $(
                if *address == <$call as SystemCall>::ADDRESS {
                    return Some(Visit::<$call>::visit(visitor));
                }
            )+
            None
        }

        /// Visits the call type of every system actor, in address order.
        pub fn visit_all<V: EverySystemActor>(visitor: &mut V) -> Vec<V::Output> {
            vec![$(Visit::<$call>::visit(visitor)),+]
        }

        /// A call of a system actor as the validity rule decoded it from a transaction's
        /// payload, handed on to whoever runs the transaction so it is decoded once.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum AnySystemCall {
            $(
                #[doc = concat!("A call of the system actor whose calls are [`", stringify!($call), "`].")]
                $call($call),
            )+
        }

        $(
            impl From<$call> for AnySystemCall {
                fn from(call: $call) -> Self {
                    AnySystemCall::$call(call)
                }
            }
        )+

        impl AnySystemCall {
            /// The address of the system actor the call is for.
            pub fn address(&self) -> Address {
                match self {
                    $(AnySystemCall::$call(_) => <$call as SystemCall>::ADDRESS,)+
                }
            }

            /// Hands the call, with its type, to `visitor`.
            pub fn visit<V: EverySystemCall>(self, visitor: &mut V) -> V::Output {
                match self {
                    $(AnySystemCall::$call(call) => VisitCall::<$call>::visit_call(visitor, call),)+
                }
            }
        }
    };
}

system_actors!(RegistryCall, JobCall, SecretCall, GovernanceCall, StorageCall, RelayCall, TokenCall, LibraryCall);

/// What the list says of one system actor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemActorInfo {
    /// Its reserved address.
    pub address: Address,
    /// Its name, as its refusals say it.
    pub name: &'static str,
    /// Its handlers.
    pub handlers: &'static [&'static str],
}

struct Describe;

impl SystemActorVisitor for Describe {
    type Output = SystemActorInfo;
}

impl<C: SystemCall> Visit<C> for Describe {
    fn visit(&mut self) -> SystemActorInfo {
        SystemActorInfo { address: C::ADDRESS, name: C::NAME, handlers: C::HANDLERS }
    }
}

/// Every system actor, in address order.
pub fn all() -> Vec<SystemActorInfo> {
    visit_all(&mut Describe)
}

/// Whether a system actor lives at `address`.
pub fn is_system_actor(address: &Address) -> bool {
    visit(address, &mut Describe).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system_call::SystemCallError;

    #[test]
    fn the_list_is_in_address_order_within_the_reserved_range() {
        let actors = all();
        assert_eq!(actors.len(), 8);
        for pair in actors.windows(2) {
            assert!(pair[0].address < pair[1].address, "{} before {}", pair[0].name, pair[1].name);
        }
        for actor in &actors {
            assert!(crate::validity::is_system_address(&actor.address), "{}", actor.name);
            assert!(is_system_actor(&actor.address));
            assert!(!actor.handlers.is_empty(), "{}", actor.name);
        }
        assert!(!is_system_actor(&crate::payload::ACTOR_UPGRADES_ADDRESS));
        assert!(!is_system_actor(&Address([2; 20])));
    }

    /// A visitor that decodes an unknown handler for each actor.
    struct Unknown;

    impl SystemActorVisitor for Unknown {
        type Output = String;
    }

    impl<C: SystemCall> Visit<C> for Unknown {
        fn visit(&mut self) -> String {
            match C::decode("no_such_handler", &[0xa0]) {
                Err(error @ SystemCallError::Handler { .. }) => error.to_string(),
                other => panic!("{}: {:?}", C::NAME, other.map(|call| call.handler())),
            }
        }
    }

    #[test]
    fn an_unknown_handler_is_refused_by_name_with_the_handlers_listed() {
        let messages = visit_all(&mut Unknown);
        assert_eq!(
            messages[6],
            "the tokens actor has no handler \"no_such_handler\"; it has create, transfer, approve, transfer_from, \
             mint, burn, freeze, unfreeze, set_owner, balance"
        );
        assert_eq!(
            messages[3],
            "governance has no handler \"no_such_handler\"; it has lock, unlock, propose, vote, execute"
        );
    }
}

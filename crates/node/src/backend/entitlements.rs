//! The entitlement registry for the API, with each limit that is a chain parameter at its live
//! value.

use super::NodeHandle;
use drover_rpc::backend::EntitlementBackend;
use drover_types::api::EntitlementInfo;

impl EntitlementBackend for NodeHandle {
    fn entitlements(&self) -> Vec<EntitlementInfo> {
        let live = self.0.chain.tip().next_params;
        drover_vm::ENTITLEMENT_REGISTRY
            .iter()
            .map(|(id, e)| EntitlementInfo {
                id: (*id).to_owned(),
                description: e.description().to_owned(),
                host_functions: e.host_functions().iter().map(|f| (*f).to_owned()).collect(),
                // A limit that is a chain parameter is shown at its live value.
                params: e
                    .params()
                    .into_iter()
                    .map(|(name, value)| {
                        let value = live.get(name).and_then(|v| u64::try_from(v).ok()).unwrap_or(value);
                        (name.to_owned(), value)
                    })
                    .collect(),
            })
            .collect()
    }

    fn manifest_problems(&self, ids: &[String]) -> Vec<(usize, String)> {
        drover_vm::manifest_problems(ids)
    }
}

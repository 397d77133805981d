//! The entitlement registry's mock: `storage.kv` and `events.emit`; a manifest's problems are
//! its unknown and repeated ids, as a deploy would refuse them.

use super::EntitlementBackend;
use crate::mock::MockBackend;
use drover_types::api::EntitlementInfo;

impl EntitlementBackend for MockBackend {
    fn entitlements(&self) -> Vec<EntitlementInfo> {
        ["storage.kv", "events.emit"]
            .into_iter()
            .map(|id| EntitlementInfo {
                id: id.to_owned(),
                description: format!("the mock's {id}"),
                host_functions: Vec::new(),
                params: Default::default(),
            })
            .collect()
    }

    fn manifest_problems(&self, ids: &[String]) -> Vec<(usize, String)> {
        let known = self.entitlements();
        let mut problems = Vec::new();
        for (at, id) in ids.iter().enumerate() {
            if !known.iter().any(|e| e.id == *id) {
                problems.push((at, "unknown".to_owned()));
            } else if ids[..at].contains(id) {
                problems.push((at, "repeated".to_owned()));
            }
        }
        problems
    }
}

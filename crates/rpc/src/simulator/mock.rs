//! The router tests' [`Simulator`]: records each request and answers what
//! [`MockSimulator::answer`] holds.

use super::{Simulated, Simulator};
use crate::mock::MockBackend;
use drover_types::{api::SimulationInfo, error::ApiError};

/// What the mock's simulator was asked and answers.
#[derive(Default)]
pub(crate) struct MockSimulator {
    /// Every transaction handed to `simulate`, in order.
    pub requests: Vec<Simulated>,
    /// The answer to every request (`None`: 1002).
    pub answer: Option<Result<SimulationInfo, ApiError>>,
}

impl Simulator for MockBackend {
    async fn simulate(&self, tx: Simulated) -> Result<SimulationInfo, ApiError> {
        let mut data = self.data.lock();
        data.simulator.requests.push(tx);
        data.simulator.answer.clone().unwrap_or_else(|| {
            Err(ApiError::new(drover_types::ErrorCode::NotFound, "the mock has no simulation answer"))
        })
    }
}

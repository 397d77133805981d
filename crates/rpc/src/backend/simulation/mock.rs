//! The simulation's mock: records each request and answers what [`SimulationMock::answer`]
//! holds.

use super::{Simulated, SimulationBackend};
use crate::mock::MockBackend;
use drover_types::{api::SimulationInfo, error::ApiError};

/// What the mock's simulator was asked and answers.
#[derive(Default)]
pub(crate) struct SimulationMock {
    /// Every transaction handed to `simulate`, in order.
    pub requests: Vec<Simulated>,
    /// The answer to every request (`None`: 1002).
    pub answer: Option<Result<SimulationInfo, ApiError>>,
}

impl SimulationBackend for MockBackend {
    async fn simulate(&self, tx: Simulated) -> Result<SimulationInfo, ApiError> {
        let part = self.part::<SimulationMock>();
        let mut data = part.lock();
        data.requests.push(tx);
        data.answer.clone().unwrap_or_else(|| {
            Err(ApiError::new(drover_types::ErrorCode::NotFound, "the mock has no simulation answer"))
        })
    }
}

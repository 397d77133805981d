//! The simulation's mock: records each request and answers what [`SimulationMock::answer`]
//! holds, with an empty trace when one is asked for.

use super::{Simulated, SimulationBackend};
use crate::mock::MockBackend;
use drover_types::{
    api::{ExecutionTrace, SimulationInfo},
    error::ApiError,
};

/// What the mock's simulator was asked and answers.
#[derive(Default)]
pub(crate) struct SimulationMock {
    /// Every transaction handed to `simulate`, in order, with whether a trace was asked for.
    pub requests: Vec<(Simulated, bool)>,
    /// The answer to every request (`None`: 1002).
    pub answer: Option<Result<SimulationInfo, ApiError>>,
}

impl SimulationBackend for MockBackend {
    async fn simulate(&self, tx: Simulated, trace: bool) -> Result<SimulationInfo, ApiError> {
        let part = self.part::<SimulationMock>();
        let mut data = part.lock();
        data.requests.push((tx, trace));
        let answer = data.answer.clone().unwrap_or_else(|| {
            Err(ApiError::new(drover_types::ErrorCode::NotFound, "the mock has no simulation answer"))
        })?;
        Ok(SimulationInfo { trace: trace.then(ExecutionTrace::default), ..answer })
    }
}

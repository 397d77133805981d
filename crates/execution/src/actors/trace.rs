//! [`Tracer`]: what an [`ActorHost`](super::host::ActorHost) records of an execution when asked
//! (`POST /actor/read` with `"trace": true`): a frame per handler entered, the host calls that
//! touched state or reached out, in order, and how each frame ended.
//!
//! The tracer only watches: it is consulted after the VM has charged and checked a host call and
//! after the host has applied it, and never changes an answer, so a traced execution uses the
//! same cycles and cells and ends the same way as an untraced one (a test checks it). It keeps
//! at most [`TRACE_STEPS_MAX`] steps; a nested call that starts past the bound is counted in
//! `omitted_steps` with everything it did.

use drover_types::{
    Address, ExecError,
    api::{CallTrace, ExecErrorInfo, ExecutionTrace, ReceiptStatus, TRACE_STEPS_MAX, TraceStep},
};
use drover_vm::{HostError, Outcome, Status};

/// A frame being run.
struct Open {
    call: CallTrace,
    /// Started past the bound: it and its steps are counted, not kept.
    dropped: bool,
}

/// The trace of one execution, being recorded.
#[derive(Default)]
pub(crate) struct Tracer {
    open: Vec<Open>,
    root: Option<CallTrace>,
    kept: usize,
    omitted: u64,
}

impl Tracer {
    /// Records a host call of the running handler, built only when it is kept: past the bound
    /// a host call costs the tracer a count.
    pub(crate) fn step(&mut self, step: impl FnOnce() -> TraceStep) {
        match self.open.last_mut() {
            Some(frame) if !frame.dropped && self.kept < TRACE_STEPS_MAX => {
                frame.call.steps.push(step());
                self.kept += 1;
            }
            _ => self.omitted += 1,
        }
    }

    /// A handler starts: the outermost one, or a call the running handler makes.
    pub(crate) fn enter(&mut self, actor: Address, handler: &str, library: Option<&str>, value: u128) {
        let nested = !self.open.is_empty();
        let dropped = nested && (self.kept >= TRACE_STEPS_MAX || self.open.last().is_some_and(|f| f.dropped));
        if nested && !dropped {
            self.kept += 1;
        }
        let call = CallTrace {
            actor,
            handler: handler.to_owned(),
            library: library.map(str::to_owned),
            value,
            status: ReceiptStatus::Success,
            cycles_used: 0,
            cells_used: 0,
            revert_reason: None,
            error: None,
            steps: Vec::new(),
        };
        self.open.push(Open { call, dropped });
    }

    /// The running handler ended with `result` (a host refusal kept it from starting).
    pub(crate) fn exit(&mut self, result: &Result<Outcome, HostError>) {
        let Some(Open { mut call, dropped }) = self.open.pop() else { return };
        let failed = |error: &ExecError| (ReceiptStatus::Failed, None, Some(ExecErrorInfo::from(error)));
        let (status, revert_reason, error) = match result {
            Ok(outcome) => {
                call.cycles_used = outcome.cycles_used;
                call.cells_used = outcome.cells_used;
                match &outcome.status {
                    Status::Success => (ReceiptStatus::Success, None, None),
                    Status::Revert { reason } => {
                        (ReceiptStatus::Reverted, Some(String::from_utf8_lossy(reason).into_owned()), None)
                    }
                    Status::Trap(error) => failed(error),
                }
            }
            Err(refusal) => failed(&ExecError::from(refusal.clone())),
        };
        (call.status, call.revert_reason, call.error) = (status, revert_reason, error);
        match self.open.last_mut() {
            None => self.root = Some(call),
            Some(_) if dropped => self.omitted += 1,
            Some(parent) => parent.call.steps.push(TraceStep::Call { call }),
        }
    }

    /// The trace recorded.
    pub(crate) fn finish(self) -> ExecutionTrace {
        ExecutionTrace { call: self.root, omitted_steps: self.omitted }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::api::TracedValue;
    use drover_types::exec_error::ExecCode;

    fn outcome(status: Status, cycles_used: u64) -> Outcome {
        Outcome { status, result: Vec::new(), cycles_used, cells_used: 0 }
    }

    #[test]
    fn nested_frames_land_in_their_callers_steps_in_order() {
        let mut tracer = Tracer::default();
        tracer.enter(Address([1; 20]), "outer", None, 0);
        tracer.step(|| TraceStep::StorageGet { key: b"k".to_vec(), value: Some(TracedValue::of(b"v")) });
        tracer.enter(Address([2; 20]), "inner", None, 5);
        tracer.exit(&Ok(outcome(Status::Revert { reason: b"no".to_vec() }, 70)));
        tracer.enter(Address([3; 20]), "missing", None, 0);
        tracer.exit(&Err(HostError::new(ExecCode::NoActor, "none there")));
        tracer.exit(&Ok(outcome(Status::Success, 100)));
        let trace = tracer.finish();
        let root = trace.call.unwrap();
        assert_eq!((root.handler.as_str(), root.status, root.cycles_used), ("outer", ReceiptStatus::Success, 100));
        assert_eq!(root.steps.len(), 3);
        let TraceStep::Call { call: inner } = &root.steps[1] else { panic!("{:?}", root.steps[1]) };
        assert_eq!(
            (inner.status, inner.revert_reason.as_deref(), inner.value),
            (ReceiptStatus::Reverted, Some("no"), 5)
        );
        let TraceStep::Call { call: missing } = &root.steps[2] else { panic!("{:?}", root.steps[2]) };
        assert_eq!(missing.error.as_ref().unwrap().code, "E1211");
        assert_eq!(trace.omitted_steps, 0);
    }

    #[test]
    fn steps_past_the_bound_are_counted_not_kept() {
        let mut tracer = Tracer::default();
        tracer.enter(Address([1; 20]), "outer", None, 0);
        for _ in 0..TRACE_STEPS_MAX {
            tracer.step(|| TraceStep::StorageRemove { key: vec![1], present: false });
        }
        for _ in 0..10 {
            tracer.step(|| unreachable!("a step past the bound is not built"));
        }
        tracer.enter(Address([2; 20]), "late", None, 0);
        tracer.step(|| unreachable!("a step of a frame past the bound is not built"));
        tracer.exit(&Ok(outcome(Status::Success, 1)));
        tracer.exit(&Ok(outcome(Status::Success, 2)));
        let trace = tracer.finish();
        assert_eq!(trace.call.unwrap().steps.len(), TRACE_STEPS_MAX);
        assert_eq!(trace.omitted_steps, 10 + 1 + 1);
    }
}

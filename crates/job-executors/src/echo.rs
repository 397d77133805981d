//! The `echo` job type: the result is the job's input, unchanged.
//!
//! It exists so that the whole job path (submission, assignment, a runner posting a result,
//! redundancy verification, the callback) can be exercised end to end without any real
//! compute. Like every executor it refuses a result above the runner's output limit, so that
//! the limit means the same thing whatever the job type.

use crate::ExecutorError;

/// Returns `input` as the result, or a deterministic error when it is longer than
/// `max_output_bytes`.
pub(crate) fn run(input: &[u8], max_output_bytes: usize) -> Result<Vec<u8>, ExecutorError> {
    if input.len() > max_output_bytes {
        return Err(ExecutorError::output_too_large(input.len(), max_output_bytes));
    }
    Ok(input.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_input() {
        assert_eq!(run(b"hello", 5).unwrap(), b"hello");
        assert_eq!(run(b"", 0).unwrap(), b"");
    }

    #[test]
    fn refuses_an_input_above_the_output_limit() {
        let err = run(b"hello", 4).unwrap_err();
        assert_eq!(err, ExecutorError::Deterministic("output of 5 bytes, above the limit of 4".into()));
    }
}

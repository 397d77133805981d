//! What a relay accepts, in one place for every part of it: the size of a chunk and of an
//! object, how many objects a volume holds, how long a listing is, and which object keys are
//! valid. The store enforces them on disk, the manifest decoder on what it loads, the server on
//! requests and the client before it sends one, so a key or an object one part takes is one
//! every other part takes.

/// Size of a chunk, the unit of deduplication: 1 MiB.
pub const CHUNK_BYTES: usize = 1 << 20;
/// Largest object, in bytes: 64 MiB.
pub const MAX_OBJECT_BYTES: usize = 64 << 20;
/// Longest object key, in bytes of UTF-8.
pub const MAX_KEY_BYTES: usize = 512;
/// Most objects one volume holds. Every write rewrites the volume's whole manifest, so this bounds
/// a write's cost (a manifest of this many short keys is a few MB).
pub const MAX_OBJECTS_PER_VOLUME: usize = 100_000;
/// Most entries one listing returns.
pub const MAX_LIST_LIMIT: usize = 1_000;

/// Why an object key is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The key is empty.
    #[error("an object key is at least 1 byte")]
    Empty,
    /// The key is longer than [`MAX_KEY_BYTES`].
    #[error("an object key is at most {MAX_KEY_BYTES} bytes")]
    TooLong,
    /// The key holds a NUL character.
    #[error("an object key holds no NUL character")]
    Nul,
    /// The key starts with `/`.
    #[error("an object key does not start with '/'")]
    LeadingSlash,
    /// A `/`-separated segment of the key is `.` or `..`.
    #[error("an object key has no '.' or '..' segment (a URL would rewrite it)")]
    DotSegment,
}

/// Checks an object key: 1 to [`MAX_KEY_BYTES`] bytes of UTF-8, no NUL, no leading `/`, no `.`
/// or `..` segment. The dot segments are refused (not only `..`) because HTTP clients resolve
/// them in URLs: `a/./b` would be sent, signed and stored as `a/b`.
pub fn validate_key(key: &str) -> Result<(), KeyError> {
    if key.is_empty() {
        return Err(KeyError::Empty);
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(KeyError::TooLong);
    }
    if key.contains('\0') {
        return Err(KeyError::Nul);
    }
    if key.starts_with('/') {
        return Err(KeyError::LeadingSlash);
    }
    if key.split('/').any(|segment| segment == "." || segment == "..") {
        return Err(KeyError::DotSegment);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_validated() {
        for good in ["a", "a/b/c.txt", "dir/", "é/ü", "a..b", ".hidden", &"k".repeat(MAX_KEY_BYTES)] {
            assert_eq!(validate_key(good), Ok(()), "{good:?}");
        }
        assert_eq!(validate_key(""), Err(KeyError::Empty));
        assert_eq!(validate_key(&"k".repeat(MAX_KEY_BYTES + 1)), Err(KeyError::TooLong));
        assert_eq!(validate_key("a\0b"), Err(KeyError::Nul));
        assert_eq!(validate_key("/etc/passwd"), Err(KeyError::LeadingSlash));
        for dots in ["..", "../x", "a/../b", "a/..", ".", "a/./b"] {
            assert_eq!(validate_key(dots), Err(KeyError::DotSegment), "{dots:?}");
        }
    }
}

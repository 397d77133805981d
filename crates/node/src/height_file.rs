//! `height.dat`: the last finalized height as decimal text, a recovery hint written after every
//! finalized block when height persistence is enabled (absent otherwise).
//!
//! Written to a temporary file and renamed, so a crash never leaves a torn value.

use std::{io, path::Path};

pub(crate) fn write(path: &Path, height: u64) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("dat.tmp");
    std::fs::write(&tmp, format!("{height}\n"))?;
    std::fs::rename(&tmp, path)
}

/// Reads the hint; `None` if absent or unreadable.
pub(crate) fn read(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips_and_tolerates_absence() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/height.dat");
        assert_eq!(super::read(&path), None);
        super::write(&path, 42).unwrap();
        assert_eq!(super::read(&path), Some(42));
        super::write(&path, 43).unwrap();
        assert_eq!(super::read(&path), Some(43));
    }
}

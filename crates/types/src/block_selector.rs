//! Which block `GET /block/{selector}` asks for, in the one text form the server and the SDK
//! share: `latest` (any case), a decimal height, or a block hash in hex.

use crate::H256;
use std::{fmt, str::FromStr};

/// Which block to read: `latest`, a height, or a block hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockSelector {
    /// The latest finalized block.
    Latest,
    /// The finalized block at this height.
    Height(u64),
    /// The finalized block with this hash (digest).
    Hash(H256),
}

impl fmt::Display for BlockSelector {
    /// The path segment of `/block/{selector}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockSelector::Latest => f.write_str("latest"),
            BlockSelector::Height(height) => write!(f, "{height}"),
            BlockSelector::Hash(hash) => write!(f, "{hash}"),
        }
    }
}

/// A string that is not a block selector.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid block selector {0:?}: expected `latest`, a height, or a 32-byte block hash in hex")]
pub struct BlockSelectorParseError(pub String);

impl FromStr for BlockSelector {
    type Err = BlockSelectorParseError;

    /// `latest` (any case), a decimal height, or a hash (64 hex digits, `0x` optional). Nothing
    /// around it: a path segment is taken as it stands.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("latest") {
            return Ok(BlockSelector::Latest);
        }
        // A 64-digit hash written without `0x` may consist of decimal digits only; it overflows
        // u64, so trying the height first cannot mistake a hash for a height.
        if !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && let Ok(height) = s.parse()
        {
            return Ok(BlockSelector::Height(height));
        }
        s.parse().map(BlockSelector::Hash).map_err(|_| BlockSelectorParseError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let hash = H256([0xab; 32]);
        assert_eq!("latest".parse(), Ok(BlockSelector::Latest));
        assert_eq!("LATEST".parse(), Ok(BlockSelector::Latest));
        assert_eq!("0".parse(), Ok(BlockSelector::Height(0)));
        assert_eq!("18446744073709551615".parse(), Ok(BlockSelector::Height(u64::MAX)));
        assert_eq!(hash.to_string().to_uppercase().parse(), Ok(BlockSelector::Hash(hash)));
        assert_eq!(hash.to_string()[2..].parse(), Ok(BlockSelector::Hash(hash)));
        assert_eq!("1".repeat(64).parse(), Ok(BlockSelector::Hash(H256([0x11; 32]))));
        for bad in ["", "-1", "+1", "1.0", "18446744073709551616", "0x12", "0xzz", "earliest", "lateste", " 1"] {
            assert_eq!(bad.parse::<BlockSelector>(), Err(BlockSelectorParseError(bad.to_owned())), "{bad}");
        }
        for selector in [BlockSelector::Latest, BlockSelector::Height(12), BlockSelector::Hash(hash)] {
            assert_eq!(selector.to_string().parse(), Ok(selector));
        }
        assert_eq!(BlockSelector::Hash(hash).to_string(), hash.to_string());
    }
}

//! A wallet: one secp256k1 account key, its key file and its address.
//!
//! Key files are the Ethereum-compatible plain form: the 32-byte secret as hex on one line,
//! `0x` optional, any case, surrounding whitespace ignored. Saving writes `0x` + lowercase hex
//! and a newline, refuses to replace an existing file (a lost key cannot be recovered) and, on
//! unix, creates the file readable by its owner only (mode 0600).

use crate::{Client, ClientError};
use drover_types::{Address, SecretKey, Transaction, keys::KeyError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Largest key file read, in bytes: 66 characters of key plus generous room for whitespace.
/// Anything larger is not a key file, and is not read into memory.
pub(crate) const KEY_FILE_BYTES_MAX: u64 = 1024;

/// Why a key file could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum WalletError {
    /// The key file could not be opened or read.
    #[error("cannot read key file {}", path.display())]
    Read {
        /// The key file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The key file could not be created or written.
    #[error("cannot write key file {}", path.display())]
    Write {
        /// The key file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Saving would replace an existing file, which is left untouched.
    #[error("key file {} already exists; refusing to overwrite it", path.display())]
    Exists {
        /// The existing file.
        path: PathBuf,
    },
    /// The file is larger than any key file (1,024 bytes) and was not read.
    #[error("key file {} is larger than {KEY_FILE_BYTES_MAX} bytes: not a key file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The file's content is not a secret key.
    #[error("key file {} does not hold a secret key", path.display())]
    InvalidKey {
        /// The key file.
        path: PathBuf,
        /// Why its content is not a key.
        #[source]
        source: KeyError,
    },
}

/// An account key and its address.
#[derive(Clone, Debug)]
pub struct Wallet {
    key: SecretKey,
    address: Address,
}

impl Wallet {
    /// The wallet of `key`.
    pub fn new(key: SecretKey) -> Self {
        let address = key.address();
        Self { key, address }
    }

    /// A fresh key from the operating system's RNG.
    pub fn generate() -> Self {
        Self::new(SecretKey::random())
    }

    /// Parses a key in key-file form (64 hex digits, `0x` optional, whitespace ignored).
    pub fn from_hex(text: &str) -> Result<Self, KeyError> {
        SecretKey::from_hex(text).map(Self::new)
    }

    /// Loads a key file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, WalletError> {
        let path = path.as_ref();
        let read_error = |source| WalletError::Read { path: path.to_owned(), source };
        let file = std::fs::File::open(path).map_err(read_error)?;
        // Read one byte past the limit to tell "exactly at the limit" from "larger".
        let mut bytes = Vec::new();
        file.take(KEY_FILE_BYTES_MAX + 1).read_to_end(&mut bytes).map_err(read_error)?;
        if bytes.len() as u64 > KEY_FILE_BYTES_MAX {
            return Err(WalletError::TooLarge { path: path.to_owned() });
        }
        // Non-UTF-8 content cannot be hex: report it as a malformed key.
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| WalletError::InvalidKey { path: path.to_owned(), source: KeyError::Malformed })?;
        Self::from_hex(text).map_err(|source| WalletError::InvalidKey { path: path.to_owned(), source })
    }

    /// Writes the key to a new file (mode 0600 on unix); an existing file is left untouched.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), WalletError> {
        let path = path.as_ref();
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::AlreadyExists {
                WalletError::Exists { path: path.to_owned() }
            } else {
                WalletError::Write { path: path.to_owned(), source }
            }
        })?;
        let write_error = |source| WalletError::Write { path: path.to_owned(), source };
        file.write_all(format!("{}\n", self.key.to_hex()).as_bytes()).map_err(write_error)?;
        file.sync_all().map_err(write_error)
    }

    /// The account's address, derived from the key.
    pub fn address(&self) -> Address {
        self.address
    }

    /// The account's secret key.
    pub fn secret_key(&self) -> &SecretKey {
        &self.key
    }

    /// Signs a transaction over its signing hash.
    pub fn sign(&self, tx: Transaction) -> Transaction {
        tx.sign(&self.key)
    }

    /// The next nonce of this account at the latest finalized block: 0 for an address that
    /// holds no state. Transactions still pending in the mempool are not counted, so a sender
    /// with pending transactions must track its nonces itself.
    pub async fn next_nonce(&self, client: &Client) -> Result<u64, ClientError> {
        Ok(client.account(&self.address).await?.map_or(0, |account| account.nonce))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The secret key 1, whose address is well known from Ethereum.
    const KEY_ONE: &str = "0000000000000000000000000000000000000000000000000000000000000001";
    const ADDRESS_ONE: &str = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf";

    fn write(dir: &tempfile::TempDir, name: &str, content: &[u8]) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn round_trips_a_key_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        let wallet = Wallet::generate();
        wallet.save(&path).unwrap();
        let loaded = Wallet::load(&path).unwrap();
        assert_eq!(loaded.address(), wallet.address());
        assert_eq!(loaded.secret_key().to_bytes(), wallet.secret_key().to_bytes());
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{}\n", wallet.secret_key().to_hex()));
        assert!(text.starts_with("0x") && text.trim_end().chars().skip(2).all(|c| matches!(c, '0'..='9' | 'a'..='f')));
    }

    #[cfg(unix)]
    #[test]
    fn saved_key_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        Wallet::generate().save(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "key", KEY_ONE.as_bytes());
        let err = Wallet::generate().save(&path).unwrap_err();
        assert!(matches!(err, WalletError::Exists { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), KEY_ONE);
    }

    #[test]
    fn save_reports_a_missing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let err = Wallet::generate().save(dir.path().join("missing/key")).unwrap_err();
        assert!(matches!(err, WalletError::Write { .. }), "{err}");
    }

    #[test]
    fn loads_lenient_forms() {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in [
            ("plain", KEY_ONE.to_owned()),
            ("prefixed", format!("0x{KEY_ONE}")),
            ("upper_prefix", format!("0X{KEY_ONE}")),
            ("whitespace", format!("  \n0x{KEY_ONE}\r\n\n")),
            ("upper_digits", format!("0x{}", "0".repeat(63) + "1").to_uppercase()),
        ] {
            let path = write(&dir, name, content.as_bytes());
            let wallet = Wallet::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(wallet.address().to_string(), ADDRESS_ONE, "{name}");
        }
        // An Ethereum-style key with mixed-case hex digits.
        let mixed = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF0123456789abcdef0123456789";
        let path = write(&dir, "mixed", mixed.as_bytes());
        assert_eq!(Wallet::load(&path).unwrap().secret_key().to_hex(), mixed.to_lowercase());
    }

    #[test]
    fn refuses_invalid_key_files() {
        let dir = tempfile::tempdir().unwrap();
        let malformed = [
            ("empty", Vec::new()),
            ("prefix_only", b"0x".to_vec()),
            ("short", KEY_ONE.as_bytes()[1..].to_vec()),
            ("long", format!("{KEY_ONE}00").into_bytes()),
            ("non_hex", format!("zz{}", &KEY_ONE[2..]).into_bytes()),
            ("inner_space", format!("{} {}", &KEY_ONE[..32], &KEY_ONE[32..]).into_bytes()),
            ("two_keys", format!("{KEY_ONE}\n{KEY_ONE}").into_bytes()),
            ("binary", vec![0xff; 32]),
        ];
        for (name, content) in malformed {
            let path = write(&dir, name, &content);
            let err = Wallet::load(&path).unwrap_err();
            assert!(matches!(err, WalletError::InvalidKey { source: KeyError::Malformed, .. }), "{name}: {err}");
        }
        for (name, content) in [("zero", "0".repeat(64)), ("order", "f".repeat(64))] {
            let path = write(&dir, name, content.as_bytes());
            let err = Wallet::load(&path).unwrap_err();
            assert!(matches!(err, WalletError::InvalidKey { source: KeyError::OutOfRange, .. }), "{name}: {err}");
        }
    }

    #[test]
    fn refuses_large_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let padded = format!("{KEY_ONE}{}", " ".repeat(KEY_FILE_BYTES_MAX as usize - KEY_ONE.len()));
        let at_limit = write(&dir, "at_limit", padded.as_bytes());
        assert_eq!(Wallet::load(&at_limit).unwrap().address().to_string(), ADDRESS_ONE);
        let over = write(&dir, "over", format!("{padded} ").as_bytes());
        assert!(matches!(Wallet::load(&over).unwrap_err(), WalletError::TooLarge { .. }));
        let missing = Wallet::load(dir.path().join("missing")).unwrap_err();
        assert!(matches!(missing, WalletError::Read { .. }), "{missing}");
    }

    #[test]
    fn signs_as_its_address() {
        let wallet = Wallet::from_hex(KEY_ONE).unwrap();
        let tx = Transaction {
            chain_id: 100,
            nonce: 0,
            to: Some(Address([0x11; 20])),
            value: 1,
            cycles_limit: 21_000,
            cells_limit: 0,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 2,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        };
        assert_eq!(wallet.sign(tx).recover_sender(), Ok(wallet.address()));
        assert!(Wallet::from_hex("nope").is_err());
    }
}

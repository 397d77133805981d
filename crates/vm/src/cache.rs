//! The compiled-module cache, keyed by code hash and bounded by entry count (least recently
//! used goes first).
//!
//! Compiling (validation + translation to wasmi bytecode) costs far more than running a small
//! handler, so a hot actor must not be recompiled per call. The cache cannot change results:
//! modules are compiled eagerly (no lazy per-function translation whose fuel would be charged
//! only to the first caller), so a cached and a fresh module meter the same cycles. Eviction
//! scans for the oldest entry: with a few hundred entries that costs less than keeping a list.

use crate::validate::CodeInfo;
use drover_types::H256;
use std::{collections::HashMap, sync::Arc};

/// A validated module compiled for the VM's engine.
#[derive(Debug)]
pub struct CompiledModule {
    /// What validation learned about the module.
    pub info: CodeInfo,
    pub(crate) module: wasmi::Module,
}

impl CompiledModule {
    /// keccak256 of the module's code: its cache key.
    pub fn code_hash(&self) -> H256 {
        self.info.code_hash
    }

    /// Cycles of loading this module, charged at its first use in a transaction
    /// ([`CYCLES_PER_CODE_BYTE_LOADED`](crate::meter::CYCLES_PER_CODE_BYTE_LOADED) per code byte).
    pub fn load_cycles(&self) -> u64 {
        (self.info.code_bytes as u64).saturating_mul(crate::meter::CYCLES_PER_CODE_BYTE_LOADED)
    }

    /// Whether the module exports a handler of that name.
    pub fn has_handler(&self, name: &str) -> bool {
        self.info.handlers.iter().any(|h| h == name)
    }
}

pub(crate) struct ModuleCache {
    capacity: usize,
    tick: u64,
    entries: HashMap<H256, (Arc<CompiledModule>, u64)>,
}

impl ModuleCache {
    pub(crate) fn new(capacity: usize) -> Self {
        ModuleCache { capacity: capacity.max(1), tick: 0, entries: HashMap::new() }
    }

    pub(crate) fn get(&mut self, hash: &H256) -> Option<Arc<CompiledModule>> {
        self.tick += 1;
        let tick = self.tick;
        self.entries.get_mut(hash).map(|(module, used)| {
            *used = tick;
            Arc::clone(module)
        })
    }

    pub(crate) fn insert(&mut self, module: Arc<CompiledModule>) {
        self.tick += 1;
        if self.entries.len() >= self.capacity && !self.entries.contains_key(&module.code_hash()) {
            let oldest = self.entries.iter().min_by_key(|(_, (_, used))| *used).map(|(hash, _)| *hash);
            if let Some(oldest) = oldest {
                self.entries.remove(&oldest);
            }
        }
        self.entries.insert(module.code_hash(), (module, self.tick));
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::validate;

    fn module(engine: &wasmi::Engine, code: &[u8]) -> Arc<CompiledModule> {
        let mut info = validate(code).unwrap();
        // Distinct keys for the same tiny module.
        info.code_hash = drover_types::keccak256(&[code, &[info.handlers.len() as u8]].concat());
        Arc::new(CompiledModule { info, module: wasmi::Module::new(engine, code).unwrap() })
    }

    #[test]
    fn evicts_least_recently_used() {
        let engine = wasmi::Engine::default();
        let mut cache = ModuleCache::new(2);
        let make = |salt: u8| {
            let mut m = module(&engine, b"\0asm\x01\0\0\0");
            Arc::get_mut(&mut m).unwrap().info.code_hash = H256([salt; 32]);
            m
        };
        let (a, b, c) = (make(1), make(2), make(3));
        cache.insert(a.clone());
        cache.insert(b.clone());
        assert!(cache.get(&a.code_hash()).is_some());
        cache.insert(c.clone());
        assert_eq!(cache.len(), 2);
        assert!(cache.get(&b.code_hash()).is_none(), "b was least recently used");
        assert!(cache.get(&a.code_hash()).is_some());
        assert!(cache.get(&c.code_hash()).is_some());
    }
}

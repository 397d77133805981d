//! Deploy-time validation: everything about a module that can be decided without running it.
//!
//! Order: size, then WebAssembly validity with our feature set (E1108), then the same validation
//! with floating point disabled (a failure now can only be a float, E1101), then the structural
//! bounds (imports, memory, tables, functions, locals, globals, exports, start). The feature set
//! here is exactly the one the wasmi engine is configured with (see `runtime::engine_config`), so
//! a module that passes here always compiles there.
//!
//! Using wasmparser's own validator for the float check, rather than a hand-written list of
//! float opcodes, means every float instruction and every `f32`/`f64` in a signature, local,
//! global or block type is caught by the same code that defines them.

use crate::{
    abi::{HOST_MODULE, MEMORY_EXPORT, Ty, host_function},
    error::VmError,
    limits::*,
};
use drover_types::{H256, keccak256};
use std::ops::Range;
use wasmparser::{
    BinaryReader, CompositeInnerType, ExternalKind, FuncType, Parser, Payload, SubType, TypeRef, ValType, Validator,
    WasmFeatures,
};

/// What validation learned about a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeInfo {
    /// keccak256 of the code: the key of the module cache and of the actor's code record.
    pub code_hash: H256,
    /// Exported handler names, in export order.
    pub handlers: Vec<String>,
    /// Host functions the module imports, in import order.
    pub imports: Vec<&'static str>,
    /// Declared initial memory, in pages (0 without a memory).
    pub initial_memory_pages: u64,
    /// Size of the module, in bytes.
    pub code_bytes: usize,
    /// Functions the module imports or defines (at most [`MAX_FUNCTIONS`]).
    pub functions: usize,
}

impl CodeInfo {
    /// Cycles every invocation of this module pays before its handler runs.
    pub fn invoke_cycles(&self) -> u64 {
        crate::meter::invoke_cycles(self.code_bytes, self.initial_memory_pages)
    }
}

/// The WebAssembly features actors may use. Floats are switched on only to tell a float apart
/// from any other invalidity; they never reach the engine.
pub(crate) fn wasm_features(floats: bool) -> WasmFeatures {
    let mut features = WasmFeatures::empty();
    for feature in [
        WasmFeatures::MUTABLE_GLOBAL,
        WasmFeatures::MULTI_VALUE,
        WasmFeatures::SATURATING_FLOAT_TO_INT,
        WasmFeatures::SIGN_EXTENSION,
        WasmFeatures::BULK_MEMORY,
        WasmFeatures::REFERENCE_TYPES,
        // wasmparser needs GC types for the reference-types encoding (as wasmi does).
        WasmFeatures::GC_TYPES,
        WasmFeatures::TAIL_CALL,
        WasmFeatures::EXTENDED_CONST,
    ] {
        features.set(feature, true);
    }
    features.set(WasmFeatures::FLOATS, floats);
    features
}

/// Checks `code` for deployment.
pub fn validate(code: &[u8]) -> Result<CodeInfo, VmError> {
    if code.len() > MAX_CODE_BYTES {
        return Err(VmError::CodeTooLarge { bytes: code.len(), limit: MAX_CODE_BYTES });
    }
    check_section_counts(code)?;
    Validator::new_with_features(wasm_features(true))
        .validate_all(code)
        .map_err(|e| VmError::InvalidWasm(e.to_string()))?;
    if let Err(e) = Validator::new_with_features(wasm_features(false)).validate_all(code) {
        return Err(VmError::Float { offset: e.offset() });
    }
    let info = Structure::read(code).map_err(|e| VmError::InvalidWasm(e.to_string()))??;
    Ok(CodeInfo { code_hash: keccak256(code), code_bytes: code.len(), ..info })
}

/// Refuses a module above the chain's live `max_code_bytes` (E1103). [`validate`] holds every
/// module to the VM's own cap ([`MAX_CODE_BYTES`], the most a vote may raise the parameter to);
/// a deploy, an upgrade or a library publish is held to the parameter in force as well.
pub fn check_code_limit(code: &[u8], max_code_bytes: u64) -> Result<(), VmError> {
    if code.len() as u64 > max_code_bytes {
        return Err(VmError::CodeTooLarge {
            bytes: code.len(),
            limit: usize::try_from(max_code_bytes).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Everything a deploy decides about `code` on a chain whose `max_code_bytes` is given: the live
/// size limit, then [`validate`]. What `drover actor build` checks a module against.
pub fn validate_deploy(code: &[u8], max_code_bytes: u64) -> Result<CodeInfo, VmError> {
    check_code_limit(code, max_code_bytes)?;
    validate(code)
}

/// Refuses a section that declares more entries than it has bytes. wasmparser's validator
/// reserves room for a section's declared count before reading a single entry, so a few
/// hundred bytes claiming a million imports would reserve tens of megabytes. Every entry of
/// every counted section takes at least one byte, so such a module is invalid anyway: this only
/// moves its refusal (still [`VmError::InvalidWasm`]) ahead of the reservation. A module that
/// does not parse is left for the validator to report.
fn check_section_counts(code: &[u8]) -> Result<(), VmError> {
    for payload in Parser::new(0).parse_all(code) {
        let Ok(payload) = payload else { return Ok(()) };
        let is_type_section = matches!(payload, Payload::TypeSection(_));
        let (count, range) = match payload {
            Payload::TypeSection(r) => (r.count(), r.range()),
            Payload::ImportSection(r) => (r.count(), r.range()),
            Payload::FunctionSection(r) => (r.count(), r.range()),
            Payload::TableSection(r) => (r.count(), r.range()),
            Payload::MemorySection(r) => (r.count(), r.range()),
            Payload::TagSection(r) => (r.count(), r.range()),
            Payload::GlobalSection(r) => (r.count(), r.range()),
            Payload::ExportSection(r) => (r.count(), r.range()),
            Payload::ElementSection(r) => (r.count(), r.range()),
            Payload::DataSection(r) => (r.count(), r.range()),
            Payload::CodeSectionStart { count, range, .. } => (count, range),
            _ => continue,
        };
        if count as usize > range.len() {
            return Err(VmError::InvalidWasm(format!(
                "section at offset {} declares {count} entries in {} bytes",
                range.start,
                range.len()
            )));
        }
        if let Some(offset) = is_type_section.then(|| overcounted_rec_group(code, range, count)).flatten() {
            return Err(VmError::InvalidWasm(format!(
                "recursion group at offset {offset} declares more types than the section has bytes"
            )));
        }
    }
    Ok(())
}

/// Leading byte of an explicit recursion group in the type section.
const REC_GROUP: u8 = 0x4e;

/// The offset of the first explicit recursion group of a type section that declares more types
/// than the section has bytes left: wasmparser reserves room for a group's declared count (up to
/// a million types) before reading one; no other section has such a nested count. Reading stops
/// quietly at anything that does not parse (left for the validator to report).
fn overcounted_rec_group(code: &[u8], range: Range<usize>, count: u32) -> Option<usize> {
    let bytes = code.get(range.clone())?;
    let mut reader = BinaryReader::new(bytes, range.start);
    // The section begins with its entry count.
    reader.read_var_u32().ok()?;
    for _ in 0..count {
        let mut peek = reader.clone();
        if peek.read_u8().ok()? == REC_GROUP {
            let offset = reader.original_position();
            reader = peek;
            let types = reader.read_var_u32().ok()?;
            if types as usize > reader.bytes_remaining() {
                return Some(offset);
            }
            for _ in 0..types {
                reader.read::<SubType>().ok()?;
            }
        } else {
            reader.read::<SubType>().ok()?;
        }
    }
    None
}

/// The structural pass. Parse errors are impossible after validation but are still reported
/// (outer `Result`) rather than assumed away.
struct Structure {
    types: Vec<Option<FuncType>>,
    func_types: Vec<u32>,
    imported_funcs: u32,
    memories: Vec<(u64, Option<u64>)>,
    memory_exported: bool,
    info: CodeInfo,
}

type Nested<T> = Result<Result<T, VmError>, wasmparser::BinaryReaderError>;

impl Structure {
    fn read(code: &[u8]) -> Nested<CodeInfo> {
        let mut s = Structure {
            types: Vec::new(),
            func_types: Vec::new(),
            imported_funcs: 0,
            memories: Vec::new(),
            memory_exported: false,
            info: CodeInfo {
                code_hash: H256::ZERO,
                handlers: Vec::new(),
                imports: Vec::new(),
                initial_memory_pages: 0,
                code_bytes: 0,
                functions: 0,
            },
        };
        for payload in Parser::new(0).parse_all(code) {
            if let Err(e) = s.payload(payload?)? {
                return Ok(Err(e));
            }
        }
        Ok(s.finish())
    }

    fn payload(&mut self, payload: Payload<'_>) -> Nested<()> {
        match payload {
            Payload::TypeSection(reader) => {
                for group in reader {
                    for sub in group?.into_types() {
                        self.types.push(match sub.composite_type.inner {
                            CompositeInnerType::Func(f) => Some(f),
                            _ => None,
                        });
                    }
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader {
                    let import = import?;
                    let refuse = |reason| {
                        Ok(Err(VmError::Import { module: import.module.into(), name: import.name.into(), reason }))
                    };
                    if import.module != HOST_MODULE {
                        return refuse("imports must come from module `drover`");
                    }
                    let TypeRef::Func(type_index) = import.ty else {
                        return refuse("only functions may be imported");
                    };
                    let Some(abi) = host_function(import.name) else {
                        return refuse("no such host function");
                    };
                    let ty = self.types.get(type_index as usize).and_then(Option::as_ref);
                    if !ty
                        .is_some_and(|ty| same_types(ty.params(), abi.params) && same_types(ty.results(), abi.results))
                    {
                        return refuse("signature differs from the ABI");
                    }
                    self.func_types.push(type_index);
                    self.imported_funcs += 1;
                    self.info.imports.push(abi.name);
                }
            }
            Payload::FunctionSection(reader) => {
                for type_index in reader {
                    self.func_types.push(type_index?);
                }
                if self.func_types.len() > MAX_FUNCTIONS as usize {
                    return Ok(Err(VmError::Functions(format!(
                        "{} functions, above the limit of {MAX_FUNCTIONS}",
                        self.func_types.len()
                    ))));
                }
            }
            Payload::TableSection(reader) => {
                if reader.count() > MAX_TABLES {
                    return Ok(Err(VmError::Table(format!(
                        "{} tables, above the limit of {MAX_TABLES}",
                        reader.count()
                    ))));
                }
                for table in reader {
                    let ty = table?.ty;
                    if ty.initial > MAX_TABLE_ELEMENTS || ty.maximum.is_some_and(|m| m > MAX_TABLE_ELEMENTS) {
                        return Ok(Err(VmError::Table(format!(
                            "declares {} (max {:?}) elements, above the limit of \
                             {MAX_TABLE_ELEMENTS}",
                            ty.initial, ty.maximum
                        ))));
                    }
                }
            }
            Payload::MemorySection(reader) => {
                for memory in reader {
                    let memory = memory?;
                    self.memories.push((memory.initial, memory.maximum));
                }
            }
            Payload::GlobalSection(reader) if reader.count() > MAX_GLOBALS => {
                return Ok(Err(VmError::Globals { count: reader.count(), limit: MAX_GLOBALS }));
            }
            Payload::ExportSection(reader) => {
                if reader.count() > MAX_EXPORTS {
                    return Ok(Err(VmError::HandlerConvention(format!(
                        "{} exports, above the limit of {MAX_EXPORTS}",
                        reader.count()
                    ))));
                }
                for export in reader {
                    let export = export?;
                    if let Err(e) = self.export(export.name, export.kind, export.index) {
                        return Ok(Err(e));
                    }
                }
            }
            Payload::StartSection { .. } => {
                return Ok(Err(VmError::HandlerConvention(
                    "a start function would run before every handler; use no start section".into(),
                )));
            }
            Payload::CodeSectionEntry(body) => {
                let mut locals: u64 = 0;
                for entry in body.get_locals_reader()? {
                    locals += u64::from(entry?.0);
                }
                if locals > u64::from(MAX_LOCALS_PER_FUNCTION) {
                    return Ok(Err(VmError::Functions(format!(
                        "a function declares {locals} locals, above the limit of \
                         {MAX_LOCALS_PER_FUNCTION}"
                    ))));
                }
            }
            _ => {}
        }
        Ok(Ok(()))
    }

    fn export(&mut self, name: &str, kind: ExternalKind, index: u32) -> Result<(), VmError> {
        match kind {
            ExternalKind::Memory if name == MEMORY_EXPORT => {
                self.memory_exported = true;
                Ok(())
            }
            ExternalKind::Func => {
                if name.len() > MAX_HANDLER_NAME_BYTES {
                    return Err(VmError::HandlerConvention(format!(
                        "handler name of {} bytes, above the limit of {MAX_HANDLER_NAME_BYTES}",
                        name.len()
                    )));
                }
                let ty = self
                    .func_types
                    .get(index as usize)
                    .and_then(|t| self.types.get(*t as usize))
                    .and_then(Option::as_ref);
                if !ty.is_some_and(|ty| ty.params().is_empty() && ty.results().is_empty()) {
                    return Err(VmError::HandlerConvention(format!(
                        "exported function {name:?} is not of type () -> ()"
                    )));
                }
                self.info.handlers.push(name.into());
                Ok(())
            }
            // Globals and tables may be exported (toolchains export `__heap_base` and such).
            _ => Ok(()),
        }
    }

    fn finish(mut self) -> Result<CodeInfo, VmError> {
        match self.memories.as_slice() {
            [] => {}
            [(initial, maximum)] => {
                if *initial > MAX_MEMORY_PAGES || maximum.is_some_and(|m| m > MAX_MEMORY_PAGES) {
                    return Err(VmError::Memory(format!(
                        "declares {initial} (max {maximum:?}) pages, above the limit of \
                         {MAX_MEMORY_PAGES}"
                    )));
                }
                self.info.initial_memory_pages = *initial;
            }
            more => {
                return Err(VmError::Memory(format!("{} memories; an actor has one", more.len())));
            }
        }
        if self.imported_funcs > 0 && !self.memory_exported {
            return Err(VmError::Memory(format!(
                "host functions read and write linear memory: export it as {MEMORY_EXPORT:?}"
            )));
        }
        self.info.functions = self.func_types.len();
        Ok(self.info)
    }
}

fn same_types(wasm: &[ValType], abi: &[Ty]) -> bool {
    wasm.len() == abi.len()
        && wasm.iter().zip(abi).all(|(w, a)| matches!((w, a), (ValType::I32, Ty::I32) | (ValType::I64, Ty::I64)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::exec_error::ExecCode;

    /// The smallest valid module, written out in binary so that these tests need no `wat`.
    const EMPTY_MODULE: &[u8] = b"\0asm\x01\0\0\0";

    #[test]
    fn empty_module_is_valid_and_hashed() {
        let info = validate(EMPTY_MODULE).unwrap();
        assert_eq!(info.code_hash, keccak256(EMPTY_MODULE));
        assert!(info.handlers.is_empty());
    }

    #[test]
    fn a_deploy_is_held_to_the_live_code_limit_too() {
        let len = EMPTY_MODULE.len() as u64;
        assert_eq!(validate_deploy(EMPTY_MODULE, len).unwrap(), validate(EMPTY_MODULE).unwrap());
        let refused = validate_deploy(EMPTY_MODULE, len - 1).unwrap_err();
        assert_eq!(refused, VmError::CodeTooLarge { bytes: EMPTY_MODULE.len(), limit: EMPTY_MODULE.len() - 1 });
        assert_eq!(refused.to_exec_error().code, ExecCode::CodeTooLarge);
        assert!(matches!(validate_deploy(b"\0asm\x02", 1_000), Err(VmError::InvalidWasm(_))));
    }

    /// Records the largest single allocation of the current thread, so a test can bound what
    /// a call reserves (tests run on threads of their own, so they do not see each other's).
    mod largest_allocation {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::cell::Cell;

        thread_local! {
            static LARGEST: Cell<usize> = const { Cell::new(0) };
        }

        fn note(size: usize) {
            let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
        }

        /// The largest allocation `f` makes, in bytes.
        pub(super) fn during(f: impl FnOnce()) -> usize {
            LARGEST.with(|largest| largest.set(0));
            f();
            LARGEST.with(Cell::get)
        }

        struct Recording;

        // SAFETY: every call is forwarded to `System` unchanged.
        unsafe impl GlobalAlloc for Recording {
            unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                note(layout.size());
                unsafe { System.alloc(layout) }
            }

            unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                unsafe { System.dealloc(ptr, layout) }
            }

            unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
                note(new_size);
                unsafe { System.realloc(ptr, layout, new_size) }
            }
        }

        #[global_allocator]
        static GLOBAL: Recording = Recording;
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
    }

    /// Found by the `wasm` fuzz target: an import section of 21 bytes that declares 363,802
    /// imports made the validator reserve 26 MB before reading the first one.
    const OVERCOUNTED_IMPORTS: &str = concat!(
        "0061736d0100000001090260027f7f0060000002159a9a16000000000000009a9a9a9a9a9a9a9a9a9a",
        "9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a",
        "9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a",
        "9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a",
        "9a9a9a9a9a099a9a010664726f7665720a7365745f726573756c74000003040301010105030100010726",
        "040661726d6f727902000467726f7700010867726f775f62696700020767726f774f6f6b00030a2c030c",
        "000340411040001a0c000b0b080041e80740001a0b140041014000004136023f001a004100430410000b",
        "001f046e616d65010d01000a7365745f726573756c74030901010100046d6f7265",
    );

    /// Found by the `wasm` fuzz target: a recursion group (`0x4e`) in a 47-byte type section
    /// that declares 655,359 types made the validator reserve 42 MB before reading the first.
    const OVERCOUNTED_REC_GROUP: &str = concat!(
        "0061736d01000000012f0860",
        "00017f4effff27ffffff09ffffffffff7ff0ee3c00000000ffffffffffffffffffffffffff01",
        "0000000000000004",
    );

    #[test]
    fn declared_counts_reserve_nothing_beyond_the_input() {
        // The same in a few bytes, for each counted section: a count of 2^32-1 and no entry.
        let mut modules = vec![hex(OVERCOUNTED_IMPORTS), hex(OVERCOUNTED_REC_GROUP)];
        for section in [1u8, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13] {
            let mut module = EMPTY_MODULE.to_vec();
            module.extend_from_slice(&[section, 5, 0xff, 0xff, 0xff, 0xff, 0x0f]);
            modules.push(module);
        }
        for module in modules {
            let mut result = None;
            let largest = largest_allocation::during(|| result = Some(validate(&module)));
            let code = result.map(|r| r.map_err(|e| e.code()));
            assert_eq!(code, Some(Err(ExecCode::InvalidWasm)), "{module:02x?}");
            assert!(largest < 64 * 1024, "{largest} bytes for {module:02x?}");
        }
    }

    #[test]
    fn garbage_and_oversize_are_refused() {
        assert_eq!(validate(b"nope").unwrap_err().code(), ExecCode::InvalidWasm);
        let big = vec![0u8; MAX_CODE_BYTES + 1];
        assert_eq!(validate(&big).unwrap_err().code(), ExecCode::CodeTooLarge);
    }
}

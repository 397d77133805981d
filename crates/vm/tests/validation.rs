//! Deploy-time refusals, one per E11xx code, on small hand-written modules.

mod common;

use common::wasm;
use drover_types::exec_error::ExecCode;
use drover_vm::{limits::*, validate};

#[track_caller]
fn refused(text: &str) -> ExecCode {
    validate(&wasm(text)).expect_err("module must be refused").code()
}

#[test]
fn floats_anywhere_are_refused() {
    for text in [
        "(module (func (drop (f64.const 1))))",
        "(module (func (param f32)))",
        "(module (func (local f64)))",
        "(module (global f32 (f32.const 0)))",
        "(module (func (result i32) (i32.trunc_sat_f32_s (f32.const 1))))",
        "(module (func (param i64) (result f64) (f64.reinterpret_i64 (local.get 0))))",
        "(module (import \"drover\" \"input_len\" (func (result f32))))",
    ] {
        assert_eq!(refused(text), ExecCode::FloatInstruction, "{text}");
    }
}

#[test]
fn imports_must_be_known_drover_functions() {
    let cases = [
        r#"(module (import "env" "input_len" (func (result i32))) (memory (export "memory") 1))"#,
        r#"(module (import "drover" "launch_missiles" (func)) (memory (export "memory") 1))"#,
        r#"(module (import "drover" "input_len" (func (result i64))) (memory (export "memory") 1))"#,
        r#"(module (import "drover" "memory" (memory 1)))"#,
        r#"(module (import "drover" "g" (global i32)))"#,
    ];
    for text in cases {
        assert_eq!(refused(text), ExecCode::ForbiddenImport, "{text}");
    }
}

#[test]
fn memory_tables_functions_globals_are_bounded() {
    let pages = MAX_MEMORY_PAGES;
    assert!(validate(&wasm(&format!("(module (memory {pages}))"))).is_ok());
    assert_eq!(refused(&format!("(module (memory {}))", pages + 1)), ExecCode::MemoryDeclaration);
    assert_eq!(refused(&format!("(module (memory 1 {}))", pages + 1)), ExecCode::MemoryDeclaration);
    assert_eq!(
        refused(r#"(module (import "drover" "input_len" (func (result i32))) (memory 1))"#),
        ExecCode::MemoryDeclaration,
        "host functions need the memory exported"
    );
    assert_eq!(refused("(module (memory 1) (memory 1))"), ExecCode::InvalidWasm, "multi-memory is off");
    assert_eq!(refused("(module (memory i64 1))"), ExecCode::InvalidWasm, "memory64 is off");

    assert_eq!(refused(&format!("(module (table {} funcref))", MAX_TABLE_ELEMENTS + 1)), ExecCode::TableDeclaration);
    assert_eq!(refused("(module (table 1 funcref) (table 1 funcref))"), ExecCode::TableDeclaration);

    let funcs = "(func)".repeat(MAX_FUNCTIONS as usize + 1);
    assert_eq!(refused(&format!("(module {funcs})")), ExecCode::TooManyFunctions);
    let locals = " i32".repeat(MAX_LOCALS_PER_FUNCTION as usize + 1);
    assert_eq!(refused(&format!("(module (func (local{locals})))")), ExecCode::TooManyFunctions);

    let globals = "(global i32 (i32.const 0))".repeat(MAX_GLOBALS as usize + 1);
    assert_eq!(refused(&format!("(module {globals})")), ExecCode::TooManyGlobals);
}

#[test]
fn exports_follow_the_handler_convention() {
    assert_eq!(refused(r#"(module (func (export "add") (param i32)))"#), ExecCode::HandlerConvention);
    assert_eq!(refused(r#"(module (func (export "get") (result i32) (i32.const 1)))"#), ExecCode::HandlerConvention);
    let long = "h".repeat(MAX_HANDLER_NAME_BYTES + 1);
    assert_eq!(refused(&format!(r#"(module (func (export "{long}")))"#)), ExecCode::HandlerConvention);
    assert_eq!(refused("(module (func $s) (start $s))"), ExecCode::HandlerConvention);
    // Globals may be exported alongside handlers.
    let info = validate(&wasm(
        r#"(module (global (export "__heap_base") i32 (i32.const 0)) (func (export "a")) (func (export "b")))"#,
    ))
    .unwrap();
    assert_eq!(info.handlers, ["a", "b"]);
}

#[test]
fn invalid_and_unsupported_wasm_is_refused() {
    assert_eq!(refused("(module (func (result i32)))"), ExecCode::InvalidWasm);
    assert_eq!(refused("(module (func (drop (v128.const i64x2 0 0))))"), ExecCode::InvalidWasm, "SIMD is off");
}

;; Hostile: recursion without end.
;;   dive     a wasm function calling itself: traps with E1203 at MAX_WASM_RECURSION_DEPTH
;;   descend  calls `descend` on itself through the host (synchronous actor call) until the
;;            depth limit refuses (E1210); each level returns the callee's return data, so the
;;            outermost result is the refusal's "E1210: ..." text
;; Manifest: actor.call
(module
  (import "drover" "self_address" (func $self_address (param i32)))
  (import "drover" "call" (func $call (param i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "return_data_len" (func $return_data_len (result i32)))
  (import "drover" "return_data_read" (func $return_data_read (param i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "descend")
  ;; 32..48 zero value, 64..84 own address, 128.. return data

  (func $rec (param $n i64) (result i64)
    (i64.add (call $rec (i64.add (local.get $n) (i64.const 1))) (i64.const 1)))

  (func (export "dive")
    (drop (call $rec (i64.const 0))))

  (func (export "descend")
    (call $self_address (i32.const 64))
    (drop (call $call (i32.const 64) (i32.const 0) (i32.const 7) (i32.const 0) (i32.const 0)
      (i32.const 32) (i64.const 0)))
    (call $return_data_read (i32.const 128))
    (call $set_result (i32.const 128) (call $return_data_len))))

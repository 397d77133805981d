;; Library "fixed": fixed-point helpers, published once and run by actors in their own context
;; with library_call (docs/libraries.md).
;;   mul_div(a: u64 LE ++ b: u64 LE ++ c: u64 LE) -> (a × b) / c as u64 LE (a 128-bit product
;;       is not needed for the example's ranges; c = 0 reverts)
;;   remember(bytes): stores bytes under "memo" in the storage of the actor that called it
;; Manifest: storage.kv (what remember needs; the caller must grant it too)
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "memo")
  (data (i32.const 16) "bad input")
  (data (i32.const 32) "division by zero")

  (func (export "mul_div")
    (if (i32.ne (call $input_len) (i32.const 24))
      (then (call $revert (i32.const 16) (i32.const 9))))
    (call $input_read (i32.const 1024))
    (if (i64.eqz (i64.load (i32.const 1040)))
      (then (call $revert (i32.const 32) (i32.const 16))))
    (i64.store (i32.const 2048)
      (i64.div_u
        (i64.mul (i64.load (i32.const 1024)) (i64.load (i32.const 1032)))
        (i64.load (i32.const 1040))))
    (call $set_result (i32.const 2048) (i32.const 8)))

  (func (export "remember")
    (local $len i32)
    (local.set $len (call $input_len))
    (if (i32.gt_u (local.get $len) (i32.const 32768))
      (then (call $revert (i32.const 16) (i32.const 9))))
    (call $input_read (i32.const 1024))
    (call $storage_set (i32.const 0) (i32.const 4) (i32.const 1024) (local.get $len))))

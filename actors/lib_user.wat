;; An actor that uses the library "fixed" (actors/lib_fixed.wat) through library_call.
;;   compute(publisher: 20 bytes ++ version: u32 LE (0 = latest) ++ a ++ b ++ c: u64 LE)
;;       runs fixed.mul_div and stores its 8-byte result under "out"
;;   memo(publisher: 20 bytes ++ version: u32 LE ++ bytes)
;;       runs fixed.remember: "memo" lands in this actor's own storage
;; Either reverts with the library's answer when the call does not succeed.
;; Manifest: storage.kv
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (import "drover" "library_call"
    (func $library_call (param i32 i32 i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "return_data_len" (func $return_data_len (result i32)))
  (import "drover" "return_data_read" (func $return_data_read (param i32)))
  (memory (export "memory") 1)
  ;; 0 "fixed", 8 "out", 16 "mul_div", 32 "remember", 48 "bad input"; 1024.. input, 8192.. answer
  (data (i32.const 0) "fixed")
  (data (i32.const 8) "out")
  (data (i32.const 16) "mul_div")
  (data (i32.const 32) "remember")
  (data (i32.const 48) "bad input")

  ;; Calls handler (at $handler, $handler_len) of the library named at input 0..24, with the
  ;; rest of the input as payload; reverts on failure; leaves the answer at 8192 and returns
  ;; its length.
  (func $use (param $handler i32) (param $handler_len i32) (result i32)
    (local $len i32) (local $answer i32)
    (local.set $len (call $input_len))
    (if (i32.or (i32.lt_u (local.get $len) (i32.const 24)) (i32.gt_u (local.get $len) (i32.const 4096)))
      (then (call $revert (i32.const 48) (i32.const 9))))
    (call $input_read (i32.const 1024))
    (local.set $answer
      (call $library_call
        (i32.const 1024) (i32.const 0) (i32.const 5) (i32.load (i32.const 1044))
        (local.get $handler) (local.get $handler_len)
        (i32.const 1048) (i32.sub (local.get $len) (i32.const 24))
        (i64.const 0)))
    (local.set $len (call $return_data_len))
    (if (i32.gt_u (local.get $len) (i32.const 1024)) (then (local.set $len (i32.const 1024))))
    (call $return_data_read (i32.const 8192))
    (if (local.get $answer)
      (then (call $revert (i32.const 8192) (local.get $len))))
    (local.get $len))

  (func (export "compute")
    (local $len i32)
    (local.set $len (call $use (i32.const 16) (i32.const 7)))
    (call $storage_set (i32.const 8) (i32.const 3) (i32.const 8192) (local.get $len)))

  (func (export "memo")
    (drop (call $use (i32.const 32) (i32.const 8)))))

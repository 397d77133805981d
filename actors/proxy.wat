;; Proxy: a nested-call harness.
;;   forward(target: 20 bytes ++ value: u128 LE ++ handler name)
;;       writes key "before", calls handler on target with the value and an empty payload,
;;       stores the call's status under "status" (1 byte) and returns the callee's return data
;;   forward_then_revert(same input)  forwards, then reverts: nothing of either may stay
;; Manifest: storage.kv, actor.call, econ.transfer
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "call" (func $call (param i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "return_data_len" (func $return_data_len (result i32)))
  (import "drover" "return_data_read" (func $return_data_read (param i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "before")
  (data (i32.const 8) "status")
  (data (i32.const 16) "undo")
  ;; 64.. input: 64..84 target, 84..100 value, 100.. handler; 512 status; 1024.. return data

  (func $forward
    (call $input_read (i32.const 64))
    (call $storage_set (i32.const 0) (i32.const 6) (i32.const 16) (i32.const 4))
    (i32.store8 (i32.const 512)
      (call $call (i32.const 64) (i32.const 100) (i32.sub (call $input_len) (i32.const 36))
        (i32.const 0) (i32.const 0) (i32.const 84) (i64.const 0)))
    (call $storage_set (i32.const 8) (i32.const 6) (i32.const 512) (i32.const 1))
    (call $return_data_read (i32.const 1024))
    (call $set_result (i32.const 1024) (call $return_data_len)))

  (func (export "forward") (call $forward))

  (func (export "forward_then_revert")
    (call $forward)
    (call $revert (i32.const 16) (i32.const 4))))

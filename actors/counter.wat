;; Counter: a u64 (little-endian) under storage key "count".
;;   increment  adds one, stores it, returns the new value (8 bytes LE)
;;   get        returns the value (0 before the first increment)
;;   bump_and_revert  stores value + 1, then reverts: the host must discard the write
;; Manifest: storage.kv
(module
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "count")
  (data (i32.const 8) "changed my mind")
  ;; 32..40: the counter value

  (func $load (result i64)
    (i64.store (i32.const 32) (i64.const 0))
    (drop (call $storage_get (i32.const 0) (i32.const 5) (i32.const 32) (i32.const 8)))
    (i64.load (i32.const 32)))

  (func $store_next
    (i64.store (i32.const 32) (i64.add (call $load) (i64.const 1)))
    (call $storage_set (i32.const 0) (i32.const 5) (i32.const 32) (i32.const 8)))

  (func (export "increment")
    (call $store_next)
    (call $set_result (i32.const 32) (i32.const 8)))

  (func (export "get")
    (drop (call $load))
    (call $set_result (i32.const 32) (i32.const 8)))

  (func (export "bump_and_revert")
    (call $store_next)
    (call $revert (i32.const 8) (i32.const 15))))

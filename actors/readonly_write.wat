;; Hostile under reads: writes state. In a read-only execution the write fails with E1206
;; (API 5003), also when it happens in a nested call.
;;   touch           writes key "touched"
;;   peek            reads key "touched" and returns its value (empty if absent): fine read-only
;;   relay(address)  calls `touch` on that actor (possibly itself) and returns its status (1 byte)
;; Manifest: storage.kv, actor.call
(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "call" (func $call (param i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "touched")
  (data (i32.const 8) "touch")
  (data (i32.const 16) "yes")
  ;; 32..48 zero value, 64..84 address, 96.. value buffer

  (func (export "touch")
    (call $storage_set (i32.const 0) (i32.const 7) (i32.const 16) (i32.const 3)))

  (func (export "peek")
    (local $len i32)
    (local.set $len (call $storage_get (i32.const 0) (i32.const 7) (i32.const 96) (i32.const 16)))
    (if (i32.lt_s (local.get $len) (i32.const 0)) (then (local.set $len (i32.const 0))))
    (call $set_result (i32.const 96) (local.get $len)))

  (func (export "relay")
    (call $input_read (i32.const 64))
    (i32.store8 (i32.const 96)
      (call $call (i32.const 64) (i32.const 8) (i32.const 5) (i32.const 0) (i32.const 0)
        (i32.const 32) (i64.const 0)))
    (call $set_result (i32.const 96) (i32.const 1))))

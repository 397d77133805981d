;; Echo: returns its input and emits it as an event with topic "echo".
;;   echo(any bytes)  returns the same bytes
;; Manifest: events.emit
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "emit" (func $emit (param i32 i32 i32 i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  ;; Three pages hold the largest payload (128 KiB) at offset 1024.
  (memory (export "memory") 3)
  (data (i32.const 0) "echo")

  (func (export "echo")
    (local $len i32)
    (local.set $len (call $input_len))
    (call $input_read (i32.const 1024))
    (call $emit (i32.const 0) (i32.const 4) (i32.const 1024) (local.get $len))
    (call $set_result (i32.const 1024) (local.get $len))))

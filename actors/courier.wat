;; Courier: an honest mailbox user that records how long its messages take to arrive
;; (`drover bench hostile`).
;;   post    payload seq (u64 LE): sends this actor `arrive` with seq and this block's height,
;;           with a budget of 100,000 cycles (the least `max_attached_cycles` there can be)
;;   arrive  payload seq (u64 LE), sent (u64 LE): stores under the key seq (8 bytes) the value
;;           sent ‖ this block's height (16 bytes: the heights it was sent and delivered at)
;; The actor pays the budgets from its balance (send it value first).
;; Manifest: storage.kv, mailbox.send
(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "block_height" (func $block_height (result i64)))
  (import "drover" "self_address" (func $self (param i32)))
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (memory (export "memory") 1)
  (data (i32.const 64) "arrive")
  ;; 0..8 seq; 8..16 sent height; 16..24 delivered height; 32..52 self; 96..112 zero value

  (func (export "post")
    (call $input_read (i32.const 0))
    (i64.store (i32.const 8) (call $block_height))
    (call $self (i32.const 32))
    (call $send (i32.const 32) (i32.const 64) (i32.const 6) (i32.const 0) (i32.const 16) (i32.const 96)
      (i64.const 100000)))

  (func (export "arrive")
    (call $input_read (i32.const 0))
    (i64.store (i32.const 16) (call $block_height))
    (call $set (i32.const 0) (i32.const 8) (i32.const 8) (i32.const 16))))

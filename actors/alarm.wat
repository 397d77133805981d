;; Alarm: a one-shot timer.
;;   arm(height: u64 LE)  schedules `ring` at that height (budget 500,000 cycles, paid by the
;;                        actor); stores and returns the timer id (u64 LE)
;;   disarm               cancels the stored timer; returns 1 if one was pending, else 0 (1 byte)
;;   ring                 records the block height it fired at under "rang_at"
;;   rang_at              returns that height (u64 LE, 0 if it never rang)
;; Manifest: storage.kv, timer.schedule
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "block_height" (func $block_height (result i64)))
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "timer_schedule" (func $timer_schedule (param i64 i32 i32 i32 i32 i64) (result i64)))
  (import "drover" "timer_cancel" (func $timer_cancel (param i64) (result i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "timer")
  (data (i32.const 8) "rang_at")
  (data (i32.const 16) "ring")
  (data (i32.const 24) "bad input")
  ;; 64..72 scratch u64

  (func (export "arm")
    (if (i32.ne (call $input_len) (i32.const 8))
      (then (call $revert (i32.const 24) (i32.const 9))))
    (call $input_read (i32.const 64))
    (i64.store (i32.const 64)
      (call $timer_schedule (i64.load (i32.const 64)) (i32.const 16) (i32.const 4)
        (i32.const 0) (i32.const 0) (i64.const 500000)))
    (call $storage_set (i32.const 0) (i32.const 5) (i32.const 64) (i32.const 8))
    (call $set_result (i32.const 64) (i32.const 8)))

  (func (export "disarm")
    (i64.store (i32.const 64) (i64.const 0))
    (drop (call $storage_get (i32.const 0) (i32.const 5) (i32.const 64) (i32.const 8)))
    (i32.store8 (i32.const 72) (call $timer_cancel (i64.load (i32.const 64))))
    (call $set_result (i32.const 72) (i32.const 1)))

  (func (export "ring")
    (i64.store (i32.const 64) (call $block_height))
    (call $storage_set (i32.const 8) (i32.const 7) (i32.const 64) (i32.const 8)))

  (func (export "rang_at")
    (i64.store (i32.const 64) (i64.const 0))
    (drop (call $storage_get (i32.const 8) (i32.const 7) (i32.const 64) (i32.const 8)))
    (call $set_result (i32.const 64) (i32.const 8))))

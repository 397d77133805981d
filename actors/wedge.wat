;; Wedge: tries to starve the mailbox by keeping busy every share of the block's deferred work
;; it can reach, with timers and messages at the largest budget (`drover bench hostile`).
;; Every handler reads its input as n (u32 LE), cycles (u32 LE), and for the timers until (u32 LE).
;;   arm    schedules n timers `tick` at the next height, each with a budget of `cycles` and
;;          this same input
;;   tick   schedules itself again at the next height with the same budget while that height
;;          is below `until`, then burns its budget: a timer that fires in every block until
;;          then (n is ignored), so the load stops by itself
;;   flood  sends this actor n `burn` messages, each with a budget of `cycles`
;;   burn   uses its budget
;; The actor pays every budget from its balance (send it value first). A burn stops 20,000
;; cycles short of its budget, so that the run succeeds and the timer it scheduled stays.
;; Manifest: timer.schedule, mailbox.send
(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "block_height" (func $block_height (result i64)))
  (import "drover" "cycles_left" (func $cycles_left (result i64)))
  (import "drover" "self_address" (func $self (param i32)))
  (import "drover" "timer_schedule" (func $schedule (param i64 i32 i32 i32 i32 i64) (result i64)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "tick")
  (data (i32.const 24) "burn")
  ;; 0..12 input; 32..52 self; 64..80 zero value

  (func $burn
    (loop $more
      (br_if $more (i64.gt_s (call $cycles_left) (i64.const 20000)))))

  (func $tick_next_block
    (local $next i64)
    (local.set $next (i64.add (call $block_height) (i64.const 1)))
    (if (i64.lt_u (local.get $next) (i64.extend_i32_u (i32.load (i32.const 8))))
      (then
        (drop (call $schedule (local.get $next) (i32.const 16) (i32.const 4)
          (i32.const 0) (i32.const 12) (i64.extend_i32_u (i32.load (i32.const 4))))))))

  (func (export "arm")
    (local $i i32)
    (call $input_read (i32.const 0))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (i32.load (i32.const 0))))
        (call $tick_next_block)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "tick")
    (call $input_read (i32.const 0))
    (call $tick_next_block)
    (call $burn))

  (func (export "flood")
    (local $i i32)
    (call $input_read (i32.const 0))
    (call $self (i32.const 32))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (i32.load (i32.const 0))))
        (call $send (i32.const 32) (i32.const 24) (i32.const 4) (i32.const 0) (i32.const 0) (i32.const 64)
          (i64.extend_i32_u (i32.load (i32.const 4))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "burn")
    (call $burn)))

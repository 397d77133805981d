;; Audit: every host function at its most expensive, n times in one call, for the cost audit
;; (`crates/execution/src/audit.rs`) and its benchmark (`cargo bench -p drover-execution`).
;; Every handler reads its input at 131072 as u32 LE words: n, then its own arguments.
;; Storage keys are key_len bytes: the 4-byte LE counter, then zeros; values are value_len zeros.
;;   context           n: input_len, caller, self_address, origin, block_height,
;;                     block_timestamp_ms, value_received and cycles_left, n times
;;   input_read        n: copies the whole input (send the largest), n times
;;   set_result        n: sets a 64 KiB result, n times
;;   revert            n: reverts with a 1,024-byte reason
;;   storage_get       n, start, key_len: reads the entries of the counters start .. start + n
;;   storage_set       n, start, key_len, value_len: writes them
;;   storage_remove    n, start, key_len: removes them
;;   storage_next      n, start, key_len, walks, prefix_len, follow: removes n entries, then calls
;;                     storage_next `walks` times with a prefix of prefix_len bytes opening with
;;                     64 bytes 0xff (no key of a counter below 2^24 starts with 4 of them), each
;;                     from the start, or, with follow, after the key the last call answered
;;   emit              n, data_len: emits a 64-byte topic and data_len bytes, n times
;;   balance_of        n, start: reads the balances of 0xbe ‖ 19-byte big-endian counter
;;   transfer          n, start: transfers 1 base unit to each of those addresses
;;   send              n, payload_len: sends itself `noop` with payload_len bytes, n times
;;   call              n, depth, 12 bytes, target (20 bytes): calls itself `call` depth levels
;;                     deep, then target's `noop` n times
;;   return_data       n, 16 bytes, target (20 bytes): calls target's `noop` once, then return_data_len
;;                     and return_data_read of its result n times
;;   library_call      n, version, name_len, 8 bytes, publisher (20 bytes), name: runs the
;;                     library's `noop` n times
;;   job_submit        n, args_len, escrow (16 bytes), args: submits the job n times
;;   timer_schedule    n, height, payload_len: schedules `noop` at height, n times
;;   timer_cancel      n, height: cancels the timers (height << 32) | i for i below n
;;   noop              does nothing
;; Manifest: storage.kv, events.emit, econ.transfer, mailbox.send, actor.call, job.submit,
;; timer.schedule
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (import "drover" "caller" (func $caller (param i32)))
  (import "drover" "self_address" (func $self (param i32)))
  (import "drover" "origin" (func $origin (param i32)))
  (import "drover" "block_height" (func $block_height (result i64)))
  (import "drover" "block_timestamp_ms" (func $block_timestamp_ms (result i64)))
  (import "drover" "value_received" (func $value_received (param i32)))
  (import "drover" "cycles_left" (func $cycles_left (result i64)))
  (import "drover" "storage_get" (func $get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (import "drover" "storage_remove" (func $remove (param i32 i32) (result i32)))
  (import "drover" "storage_next" (func $next (param i32 i32 i32 i32 i32 i32 i32 i32) (result i64)))
  (import "drover" "emit" (func $emit (param i32 i32 i32 i32)))
  (import "drover" "balance_of" (func $balance_of (param i32 i32)))
  (import "drover" "transfer" (func $transfer (param i32 i32)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (import "drover" "call" (func $call (param i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "job_submit" (func $job_submit (param i32 i32 i32 i64) (result i32)))
  (import "drover" "library_call" (func $library_call (param i32 i32 i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "return_data_len" (func $return_data_len (result i32)))
  (import "drover" "return_data_read" (func $return_data_read (param i32)))
  (import "drover" "timer_schedule" (func $timer_schedule (param i64 i32 i32 i32 i32 i64) (result i64)))
  (import "drover" "timer_cancel" (func $timer_cancel (param i64) (result i32)))
  (memory (export "memory") 4)
  ;; 64..84 address; 96..112 amount 1; 112..128 balance; 128..384 key; 384..640 prefix (0xff);
  ;; 640..704 topic; 704 "noop"; 712 "call"; 160..176 zero value; 768..808 child input;
  ;; 1024..66560 value, result and return data; 131072.. input
  (data (i32.const 384) "\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff")
  (data (i32.const 416) "\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff")
  (data (i32.const 640) "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt")
  (data (i32.const 704) "noop")
  (data (i32.const 712) "call")

  ;; Reads the input at 131072 and answers n.
  (func $input (result i32)
    (call $input_read (i32.const 131072))
    (i32.load (i32.const 131072)))

  ;; The i-th u32 word of the input.
  (func $arg (param $i i32) (result i32)
    (i32.load (i32.add (i32.const 131072) (i32.shl (local.get $i) (i32.const 2)))))

  ;; The key of a counter at 128: its 4 LE bytes (the zeros after them complete any length).
  (func $key (param $counter i32)
    (i32.store (i32.const 128) (local.get $counter)))

  ;; The address 0xbe ‖ 19-byte big-endian counter at 64.
  (func $fresh (param $counter i32)
    (i32.store8 (i32.const 64) (i32.const 0xbe))
    (i32.store8 (i32.const 83) (local.get $counter))
    (i32.store8 (i32.const 82) (i32.shr_u (local.get $counter) (i32.const 8)))
    (i32.store8 (i32.const 81) (i32.shr_u (local.get $counter) (i32.const 16)))
    (i32.store8 (i32.const 80) (i32.shr_u (local.get $counter) (i32.const 24))))

  (func (export "noop"))

  (func (export "context")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $input_len))
        (call $caller (i32.const 64))
        (call $self (i32.const 64))
        (call $origin (i32.const 64))
        (drop (call $block_height))
        (drop (call $block_timestamp_ms))
        (call $value_received (i32.const 112))
        (drop (call $cycles_left))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "input_read")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $input_read (i32.const 131072))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "set_result")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $set_result (i32.const 1024) (i32.const 65536))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "revert")
    (drop (call $input))
    (call $revert (i32.const 1024) (i32.const 1024)))

  (func (export "storage_get")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $key (i32.add (call $arg (i32.const 1)) (local.get $i)))
        (drop (call $get (i32.const 128) (call $arg (i32.const 2)) (i32.const 1024) (i32.const 65536)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "storage_set")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $key (i32.add (call $arg (i32.const 1)) (local.get $i)))
        (call $set (i32.const 128) (call $arg (i32.const 2)) (i32.const 1024) (call $arg (i32.const 3)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func $remove_all
    (local $i i32) (local $n i32)
    (local.set $n (call $arg (i32.const 0)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $key (i32.add (call $arg (i32.const 1)) (local.get $i)))
        (drop (call $remove (i32.const 128) (call $arg (i32.const 2))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "storage_remove")
    (drop (call $input))
    (call $remove_all))

  (func (export "storage_next")
    (local $i i32) (local $r i64) (local $cursor_len i32)
    (drop (call $input))
    (call $remove_all)
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (call $arg (i32.const 3))))
        ;; The cursor and the answered key share the key buffer: the host reads the one before
        ;; it writes the other.
        (local.set $r (call $next (i32.const 384) (call $arg (i32.const 4)) (i32.const 128) (local.get $cursor_len)
          (i32.const 128) (i32.const 256) (i32.const 1024) (i32.const 65536)))
        (local.set $cursor_len
          (select (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))) (i32.const 0)
            (i32.and (call $arg (i32.const 5)) (i64.ge_s (local.get $r) (i64.const 0)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "emit")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $emit (i32.const 640) (i32.const 64) (i32.const 1024) (call $arg (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "balance_of")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $fresh (i32.add (call $arg (i32.const 1)) (local.get $i)))
        (call $balance_of (i32.const 64) (i32.const 112))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "transfer")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (i32.store8 (i32.const 96) (i32.const 1))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $fresh (i32.add (call $arg (i32.const 1)) (local.get $i)))
        (call $transfer (i32.const 64) (i32.const 96))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "send")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (call $self (i32.const 64))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $send (i32.const 64) (i32.const 704) (i32.const 4) (i32.const 1024) (call $arg (i32.const 1))
          (i32.const 160) (i64.const 0))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "call")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (if (call $arg (i32.const 1))
      (then
        ;; One level deeper: the same input with depth - 1.
        (memory.copy (i32.const 768) (i32.const 131072) (i32.const 40))
        (i32.store (i32.const 772) (i32.sub (call $arg (i32.const 1)) (i32.const 1)))
        (call $self (i32.const 64))
        (drop (call $call (i32.const 64) (i32.const 712) (i32.const 4) (i32.const 768) (i32.const 40)
          (i32.const 160) (i64.const 0)))
        (return)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $call (i32.const 131092) (i32.const 704) (i32.const 4) (i32.const 0) (i32.const 0)
          (i32.const 160) (i64.const 0)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "return_data")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (drop (call $call (i32.const 131092) (i32.const 704) (i32.const 4) (i32.const 0) (i32.const 0)
      (i32.const 160) (i64.const 0)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $return_data_len))
        (call $return_data_read (i32.const 1024))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "library_call")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $library_call (i32.const 131092) (i32.const 131112) (call $arg (i32.const 2))
          (call $arg (i32.const 1)) (i32.const 704) (i32.const 4) (i32.const 0) (i32.const 0) (i64.const 0)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "job_submit")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $job_submit (i32.const 131096) (call $arg (i32.const 1)) (i32.const 131080) (i64.const 0)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "timer_schedule")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $timer_schedule (i64.extend_i32_u (call $arg (i32.const 1))) (i32.const 704) (i32.const 4)
          (i32.const 1024) (call $arg (i32.const 2)) (i64.const 0)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "timer_cancel")
    (local $i i32) (local $n i32)
    (local.set $n (call $input))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (drop (call $timer_cancel (i64.or (i64.shl (i64.extend_i32_u (call $arg (i32.const 1))) (i64.const 32))
          (i64.extend_i32_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))))

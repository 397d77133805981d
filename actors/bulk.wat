;; Bulk: state-heavy patterns for benchmarks and robustness tests, each paid per unit of work.
;;   fill      payload n (u32 LE), start (u32 LE): writes n entries, key = value = the 8-byte LE
;;             counter start + i (new keys when the ranges do not overlap)
;;   walk      payload n (u32 LE): visits up to n entries with storage_next (no prefix, in storage
;;             order from the first), returns how many it visited (u32 LE)
;;   nest      payload depth (u32 LE), fanout (u32 LE): calls its own `nest` `fanout` times with
;;             depth - 1, down to 0 (a call tree of fanout^depth instantiations, as deep as the VM
;;             allows)
;;   touch     payload n (u32 LE), seed (u32 LE), range (u32 LE): reads and rewrites n keys drawn
;;             pseudo-randomly (a 64-bit LCG seeded with `seed`) from the counters 0 .. range
;;             (random reads and writes over a map `fill` built)
;;   churn     payload n (u32 LE), start (u32 LE), walks (u32 LE), optional undo (u32 LE): removes
;;             the n entries `fill` wrote from start, then asks storage_next for the first entry
;;             `walks` times (every walk starts among the deletions); reverts at the end when undo
;;             is not 0 (the entries come back, ready for the next churn)
;;   balances  payload n (u32 LE), start (u32 LE): reads the balances of the accounts
;;             0xbe ‖ 19-byte big-endian counter, for counters start .. start + n (what
;;             `drover bench transfers --recipients fresh` creates)
;;   pay       payload n (u32 LE), start (u32 LE): transfers 1 base unit to each of those accounts
;;             (creating the ones that do not exist)
;; Manifest: storage.kv, actor.call (and econ.transfer for pay)
(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "storage_get" (func $get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $set (param i32 i32 i32 i32)))
  (import "drover" "storage_remove" (func $remove (param i32 i32) (result i32)))
  (import "drover" "storage_next" (func $next (param i32 i32 i32 i32 i32 i32 i32 i32) (result i64)))
  (import "drover" "self_address" (func $self (param i32)))
  (import "drover" "call" (func $call (param i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "balance_of" (func $balance_of (param i32 i32)))
  (import "drover" "transfer" (func $transfer (param i32 i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 200) "nest")
  (data (i32.const 208) "undone")
  ;; 0..16 input; 16..24 key; 32..52 self / address; 64..80 zero value; 96..104 child input;
  ;; 128..144 balance; 144..160 amount; 256..512 cursor; 512..768 key buffer; 768..1024 value buffer

  (func (export "fill")
    (local $i i32) (local $n i32)
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i64.store (i32.const 16) (i64.extend_i32_u (i32.add (i32.load (i32.const 4)) (local.get $i))))
        (call $set (i32.const 16) (i32.const 8) (i32.const 16) (i32.const 8))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "touch")
    (local $i i32) (local $n i32) (local $x i64)
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (local.set $x (i64.extend_i32_u (i32.load (i32.const 4))))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $x (i64.add (i64.mul (local.get $x) (i64.const 6364136223846793005))
          (i64.const 1442695040888963407)))
        ;; The high 32 bits, reduced to the range.
        (i64.store (i32.const 16)
          (i64.rem_u (i64.shr_u (local.get $x) (i64.const 32)) (i64.extend_i32_u (i32.load (i32.const 8)))))
        (drop (call $get (i32.const 16) (i32.const 8) (i32.const 768) (i32.const 8)))
        (call $set (i32.const 16) (i32.const 8) (i32.const 16) (i32.const 8))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "walk")
    (local $i i32) (local $n i32) (local $r i64) (local $cursor_len i32)
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $r (call $next (i32.const 0) (i32.const 0) (i32.const 256) (local.get $cursor_len)
          (i32.const 256) (i32.const 256) (i32.const 768) (i32.const 256)))
        (br_if $done (i64.lt_s (local.get $r) (i64.const 0)))
        (local.set $cursor_len (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (i32.store (i32.const 0) (local.get $i))
    (call $set_result (i32.const 0) (i32.const 4)))

  (func (export "churn")
    (local $i i32) (local $n i32)
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i64.store (i32.const 16) (i64.extend_i32_u (i32.add (i32.load (i32.const 4)) (local.get $i))))
        (drop (call $remove (i32.const 16) (i32.const 8)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (local.set $i (i32.const 0))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (i32.load (i32.const 8))))
        (drop (call $next (i32.const 0) (i32.const 0) (i32.const 256) (i32.const 0)
          (i32.const 512) (i32.const 256) (i32.const 768) (i32.const 256)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (if (i32.load (i32.const 12)) (then (call $revert (i32.const 208) (i32.const 6)))))

  (func (export "nest")
    (local $f i32) (local $depth i32)
    (call $input_read (i32.const 0))
    (local.set $depth (i32.load (i32.const 0)))
    (if (i32.eqz (local.get $depth)) (then (return)))
    (call $self (i32.const 32))
    (i32.store (i32.const 96) (i32.sub (local.get $depth) (i32.const 1)))
    (i32.store (i32.const 100) (i32.load (i32.const 4)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $f) (i32.load (i32.const 4))))
        (drop (call $call (i32.const 32) (i32.const 200) (i32.const 4) (i32.const 96) (i32.const 8)
          (i32.const 64) (i64.const 0)))
        ;; A child may have used the buffers: put this level's child input back.
        (i32.store (i32.const 96) (i32.sub (local.get $depth) (i32.const 1)))
        (i32.store (i32.const 100) (i32.load (i32.const 4)))
        (local.set $f (i32.add (local.get $f) (i32.const 1)))
        (br $more))))

  ;; Writes the address 0xbe ‖ 19-byte big-endian counter at 32..52.
  (func $fresh (param $counter i64)
    (local $b i32)
    (i32.store8 (i32.const 32) (i32.const 0xbe))
    ;; Bytes 12..20 of the address: the counter, big-endian.
    (loop $byte
      (i32.store8 (i32.sub (i32.const 51) (local.get $b))
        (i32.wrap_i64 (i64.shr_u (local.get $counter) (i64.extend_i32_u (i32.mul (local.get $b) (i32.const 8))))))
      (local.set $b (i32.add (local.get $b) (i32.const 1)))
      (br_if $byte (i32.lt_u (local.get $b) (i32.const 8)))))

  (func (export "balances")
    (local $i i32) (local $n i32)
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $fresh (i64.extend_i32_u (i32.add (i32.load (i32.const 4)) (local.get $i))))
        (call $balance_of (i32.const 32) (i32.const 128))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more))))

  (func (export "pay")
    (local $i i32) (local $n i32)
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (i64.store (i32.const 144) (i64.const 1))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $fresh (i64.extend_i32_u (i32.add (i32.load (i32.const 4)) (local.get $i))))
        (call $transfer (i32.const 32) (i32.const 144))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))))

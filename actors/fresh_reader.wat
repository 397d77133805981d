;; Fresh-key reader: the costliest read pattern for a node, as an attacker would use it.
;;   scan  payload n (u32 LE) [, start (u32 LE)]: reads the n distinct keys start .. start + n
;;         (4-byte LE counters), which nothing ever writes, so every read is a database lookup of
;;         an absent key. Returns nothing. Each read costs 2,004 cycles, so a call at the block
;;         limit reads about 9,000 keys.
;; Manifest: storage.kv
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "storage_get" (func $get (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0..8: the input; 16..20: the key; 64..96: the value buffer

  (func (export "scan")
    (local $n i32) (local $i i32) (local $start i32)
    (if (i32.gt_u (call $input_len) (i32.const 8)) (then (unreachable)))
    (call $input_read (i32.const 0))
    (local.set $n (i32.load (i32.const 0)))
    (local.set $start (i32.load (i32.const 4)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store (i32.const 16) (i32.add (local.get $start) (local.get $i)))
        (drop (call $get (i32.const 16) (i32.const 4) (i32.const 64) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))))

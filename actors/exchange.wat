;; Exchange: swaps one token for another at a fixed rate through the native tokens actor
;; (0x00…0c), as an ordinary token holder.
;;   init(give: 20 bytes ++ take: 20 bytes ++ rate: u64 LE)
;;       once: the exchange pays out `give` and takes in `take`; anyone stocks it with `give`
;;       by a plain token transfer to its address
;;   swap(amount: u64 LE)
;;       takes `amount` of `take` from the caller (who approved the exchange for at least that
;;       much) with transfer_from, then pays `amount × rate` of `give` with transfer; if either
;;       is refused the swap reverts and neither stays
;; The token calls are canonical CBOR argument maps built from templates below.
;; Manifest: storage.kv, token.use
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "caller" (func $caller (param i32)))
  (import "drover" "self_address" (func $self_address (param i32)))
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "call" (func $call (param i32 i32 i32 i32 i32 i32 i64) (result i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  ;; 0 storage key; 16 the tokens actor; 48, 64 handler names; 80..96 a zero value
  (data (i32.const 0) "cfg")
  (data (i32.const 16) "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\0c")
  (data (i32.const 48) "transfer_from")
  (data (i32.const 64) "transfer")
  ;; 128.. revert reasons
  (data (i32.const 128) "bad input")
  (data (i32.const 144) "already set up")
  (data (i32.const 160) "not set up")
  (data (i32.const 176) "payment refused")
  (data (i32.const 192) "payout refused")
  (data (i32.const 208) "amount overflows")
  ;; 256..304 config: give 256..276, take 276..296, rate 296..304; 320.. input
  ;; 1024: {"to": self, "from": caller, "token": take, "amount": n} (to 1029, from 1055,
  ;; token 1082, amount 1109..)
  (data (i32.const 1024) "\a4\62to\54")
  (data (i32.const 1049) "\64from\54")
  (data (i32.const 1075) "\65token\54")
  (data (i32.const 1102) "\66amount")
  ;; 1280: {"to": caller, "token": give, "amount": n} (to 1285, token 1312, amount 1339..)
  (data (i32.const 1280) "\a3\62to\54")
  (data (i32.const 1305) "\65token\54")
  (data (i32.const 1332) "\66amount")

  ;; Writes the low `n` bytes of `v` big-endian at `p`.
  (func $be (param $p i32) (param $v i64) (param $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (i32.store8 (i32.add (local.get $p) (local.get $n)) (i32.wrap_i64 (local.get $v)))
        (local.set $v (i64.shr_u (local.get $v) (i64.const 8)))
        (br $next))))

  ;; Writes `v` as a canonical CBOR unsigned integer at `p`; returns its length.
  (func $put_uint (param $p i32) (param $v i64) (result i32)
    (if (i64.lt_u (local.get $v) (i64.const 24))
      (then
        (i32.store8 (local.get $p) (i32.wrap_i64 (local.get $v)))
        (return (i32.const 1))))
    (if (i64.lt_u (local.get $v) (i64.const 0x100))
      (then
        (i32.store8 (local.get $p) (i32.const 0x18))
        (call $be (i32.add (local.get $p) (i32.const 1)) (local.get $v) (i32.const 1))
        (return (i32.const 2))))
    (if (i64.lt_u (local.get $v) (i64.const 0x10000))
      (then
        (i32.store8 (local.get $p) (i32.const 0x19))
        (call $be (i32.add (local.get $p) (i32.const 1)) (local.get $v) (i32.const 2))
        (return (i32.const 3))))
    (if (i64.lt_u (local.get $v) (i64.const 0x100000000))
      (then
        (i32.store8 (local.get $p) (i32.const 0x1a))
        (call $be (i32.add (local.get $p) (i32.const 1)) (local.get $v) (i32.const 4))
        (return (i32.const 5))))
    (i32.store8 (local.get $p) (i32.const 0x1b))
    (call $be (i32.add (local.get $p) (i32.const 1)) (local.get $v) (i32.const 8))
    (i32.const 9))

  (func (export "init")
    (if (i32.ne (call $input_len) (i32.const 48))
      (then (call $revert (i32.const 128) (i32.const 9))))
    (if (i32.ge_s (call $storage_get (i32.const 0) (i32.const 3) (i32.const 256) (i32.const 48)) (i32.const 0))
      (then (call $revert (i32.const 144) (i32.const 14))))
    (call $input_read (i32.const 256))
    (call $storage_set (i32.const 0) (i32.const 3) (i32.const 256) (i32.const 48)))

  (func (export "swap")
    (local $amount i64)
    (local $rate i64)
    (local $out i64)
    (local $n i32)
    (if (i32.ne (call $input_len) (i32.const 8))
      (then (call $revert (i32.const 128) (i32.const 9))))
    (call $input_read (i32.const 320))
    (local.set $amount (i64.load (i32.const 320)))
    (if (i32.ne (call $storage_get (i32.const 0) (i32.const 3) (i32.const 256) (i32.const 48)) (i32.const 48))
      (then (call $revert (i32.const 160) (i32.const 10))))
    (local.set $rate (i64.load (i32.const 296)))
    (local.set $out (i64.mul (local.get $amount) (local.get $rate)))
    (if (i32.and
          (i64.ne (local.get $rate) (i64.const 0))
          (i64.ne (i64.div_u (local.get $out) (local.get $rate)) (local.get $amount)))
      (then (call $revert (i32.const 208) (i32.const 16))))
    ;; Payment: transfer_from the caller to the exchange.
    (call $self_address (i32.const 1029))
    (call $caller (i32.const 1055))
    (memory.copy (i32.const 1082) (i32.const 276) (i32.const 20))
    (local.set $n (call $put_uint (i32.const 1109) (local.get $amount)))
    (if (call $call (i32.const 16) (i32.const 48) (i32.const 13)
          (i32.const 1024) (i32.add (i32.const 85) (local.get $n)) (i32.const 80) (i64.const 0))
      (then (call $revert (i32.const 176) (i32.const 15))))
    ;; Payout: transfer from the exchange to the caller.
    (call $caller (i32.const 1285))
    (memory.copy (i32.const 1312) (i32.const 256) (i32.const 20))
    (local.set $n (call $put_uint (i32.const 1339) (local.get $out)))
    (if (call $call (i32.const 16) (i32.const 64) (i32.const 8)
          (i32.const 1280) (i32.add (i32.const 59) (local.get $n)) (i32.const 80) (i64.const 0))
      (then (call $revert (i32.const 192) (i32.const 14))))))

;; Ledger: balances (u64 LE) under key "b" ++ address (21 bytes).
;;   mint(to: 20 bytes ++ amount: u64 LE)      only the owner; the first minter becomes owner
;;   transfer(to: 20 bytes ++ amount: u64 LE)  from the caller; reverts "insufficient balance"
;;   balance_of(address: 20 bytes)             returns u64 LE
;;   supply()                                  the sum of every balance (iterates storage), u64 LE
;;   audit()                                   supply(), also stored under key "supply"
;; Manifest: storage.kv
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "caller" (func $caller (param i32)))
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "storage_next"
    (func $storage_next (param i32 i32 i32 i32 i32 i32 i32 i32) (result i64)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "owner")
  (data (i32.const 8) "not owner")
  (data (i32.const 24) "insufficient balance")
  (data (i32.const 64) "bad input")
  (data (i32.const 80) "overflow")
  (data (i32.const 96) "supply")
  (data (i32.const 250) "b")
  ;; 128..156 input (address ++ amount), 160..181 key, 192..200 value,
  ;; 200..220 caller, 224..244 owner, 250 balance prefix, 256..277 iteration cursor,
  ;; 288..296 iterated value, 320..341 iterated key, 352..360 result

  (func $input (param $len i32)
    (if (i32.ne (call $input_len) (local.get $len))
      (then (call $revert (i32.const 64) (i32.const 9))))
    (call $input_read (i32.const 128)))

  (func $key (param $address i32)
    (i32.store8 (i32.const 160) (i32.const 98)) ;; "b"
    (memory.copy (i32.const 161) (local.get $address) (i32.const 20)))

  (func $balance (param $address i32) (result i64)
    (call $key (local.get $address))
    (i64.store (i32.const 192) (i64.const 0))
    (drop (call $storage_get (i32.const 160) (i32.const 21) (i32.const 192) (i32.const 8)))
    (i64.load (i32.const 192)))

  (func $set_balance (param $address i32) (param $value i64)
    (call $key (local.get $address))
    (i64.store (i32.const 192) (local.get $value))
    (call $storage_set (i32.const 160) (i32.const 21) (i32.const 192) (i32.const 8)))

  (func $same_address (param $a i32) (param $b i32) (result i32)
    (i32.and
      (i32.and
        (i64.eq (i64.load (local.get $a)) (i64.load (local.get $b)))
        (i64.eq (i64.load offset=8 (local.get $a)) (i64.load offset=8 (local.get $b))))
      (i32.eq (i32.load offset=16 (local.get $a)) (i32.load offset=16 (local.get $b)))))

  (func (export "mint")
    (local $new i64)
    (call $input (i32.const 28))
    (call $caller (i32.const 200))
    (if (i32.eq (call $storage_get (i32.const 0) (i32.const 5) (i32.const 224) (i32.const 20))
                (i32.const -1))
      (then (call $storage_set (i32.const 0) (i32.const 5) (i32.const 200) (i32.const 20)))
      (else
        (if (i32.eqz (call $same_address (i32.const 200) (i32.const 224)))
          (then (call $revert (i32.const 8) (i32.const 9))))))
    (local.set $new (i64.add (call $balance (i32.const 128)) (i64.load (i32.const 148))))
    (if (i64.lt_u (local.get $new) (i64.load (i32.const 148)))
      (then (call $revert (i32.const 80) (i32.const 8))))
    (call $set_balance (i32.const 128) (local.get $new)))

  (func (export "transfer")
    (local $from i64)
    (local $amount i64)
    (call $input (i32.const 28))
    (call $caller (i32.const 200))
    (local.set $amount (i64.load (i32.const 148)))
    (local.set $from (call $balance (i32.const 200)))
    (if (i64.lt_u (local.get $from) (local.get $amount))
      (then (call $revert (i32.const 24) (i32.const 20))))
    (call $set_balance (i32.const 200) (i64.sub (local.get $from) (local.get $amount)))
    (call $set_balance (i32.const 128)
      (i64.add (call $balance (i32.const 128)) (local.get $amount))))

  (func (export "balance_of")
    (call $input (i32.const 20))
    (i64.store (i32.const 192) (call $balance (i32.const 128)))
    (call $set_result (i32.const 192) (i32.const 8)))

  ;; Walks every "b" entry in key order, from the parent state merged with this execution's writes.
  (func $sum (result i64)
    (local $total i64)
    (local $cursor_len i32)
    (block $done
      (loop $next
        (br_if $done
          (i64.lt_s
            (call $storage_next (i32.const 250) (i32.const 1) (i32.const 256) (local.get $cursor_len)
                                (i32.const 320) (i32.const 21) (i32.const 288) (i32.const 8))
            (i64.const 0)))
        (local.set $total (i64.add (local.get $total) (i64.load (i32.const 288))))
        (memory.copy (i32.const 256) (i32.const 320) (i32.const 21))
        (local.set $cursor_len (i32.const 21))
        (br $next)))
    (local.get $total))

  (func (export "supply")
    (i64.store (i32.const 352) (call $sum))
    (call $set_result (i32.const 352) (i32.const 8)))

  (func (export "audit")
    (i64.store (i32.const 352) (call $sum))
    (call $storage_set (i32.const 96) (i32.const 6) (i32.const 352) (i32.const 8))
    (call $set_result (i32.const 352) (i32.const 8))))

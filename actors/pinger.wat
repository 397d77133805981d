;; Pinger: mailbox ping-pong between two deployments of this code.
;;   start(peer: 20 bytes)  sends `ping` to the peer
;;   ping                   counts under "pings", answers `pong` to the sender (the caller)
;;   pong                   counts under "pongs"; sends `ping` back until it has 3 pongs
;;   counts                 returns pings (u64 LE) ++ pongs (u64 LE)
;; Each message carries a budget of 1,000,000 cycles and no value.
;; Manifest: storage.kv, mailbox.send
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "caller" (func $caller (param i32)))
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "pings")
  (data (i32.const 8) "pongs")
  (data (i32.const 16) "ping")
  (data (i32.const 24) "pong")
  (data (i32.const 32) "bad input")
  ;; 64..80 zero value, 96..116 address, 128..136 counter, 136..144 second counter

  (func $bump (param $key i32) (result i64)
    (i64.store (i32.const 128) (i64.const 0))
    (drop (call $storage_get (local.get $key) (i32.const 5) (i32.const 128) (i32.const 8)))
    (i64.store (i32.const 128) (i64.add (i64.load (i32.const 128)) (i64.const 1)))
    (call $storage_set (local.get $key) (i32.const 5) (i32.const 128) (i32.const 8))
    (i64.load (i32.const 128)))

  (func $send_to (param $handler i32)
    (call $send (i32.const 96) (local.get $handler) (i32.const 4) (i32.const 0) (i32.const 0)
      (i32.const 64) (i64.const 1000000)))

  (func (export "start")
    (if (i32.ne (call $input_len) (i32.const 20))
      (then (call $revert (i32.const 32) (i32.const 9))))
    (call $input_read (i32.const 96))
    (call $send_to (i32.const 16)))

  (func (export "ping")
    (drop (call $bump (i32.const 0)))
    (call $caller (i32.const 96))
    (call $send_to (i32.const 24)))

  (func (export "pong")
    (if (i64.lt_u (call $bump (i32.const 8)) (i64.const 3))
      (then
        (call $caller (i32.const 96))
        (call $send_to (i32.const 16)))))

  (func (export "counts")
    (i64.store (i32.const 128) (i64.const 0))
    (i64.store (i32.const 136) (i64.const 0))
    (drop (call $storage_get (i32.const 0) (i32.const 5) (i32.const 128) (i32.const 8)))
    (drop (call $storage_get (i32.const 8) (i32.const 5) (i32.const 136) (i32.const 8)))
    (call $set_result (i32.const 128) (i32.const 16))))

;; Job client: buys off-chain work from the runners and keeps the verified answer.
;;   submit(escrow: u128 LE 16 bytes ++ args: the dispatcher's submit argument map)
;;       submits the job with `escrow` from this actor's balance (job_submit); stores the job
;;       id under "job"; reverts with the dispatcher's answer if it is refused
;;   on_job(callback payload)
;;       the dispatcher's callback: stores its payload ({job_id, result, status}, canonical
;;       CBOR) under "answer" and under the job id (bytes 10..42 of the payload: the map's
;;       first key is "job_id"), and the caller under "from"; refuses anyone but the dispatcher
;; Manifest: storage.kv, job.submit
(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "caller" (func $caller (param i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "job_submit" (func $job_submit (param i32 i32 i32 i64) (result i32)))
  (import "drover" "return_data_len" (func $return_data_len (result i32)))
  (import "drover" "return_data_read" (func $return_data_read (param i32)))
  (import "drover" "revert" (func $revert (param i32 i32)))
  (memory (export "memory") 2)
  ;; 0 "job", 8 "answer", 16 "from", 32 the dispatcher, 64 reasons, 1024 caller, 4096.. input,
  ;; 2048.. return data
  (data (i32.const 0) "job")
  (data (i32.const 8) "answer")
  (data (i32.const 16) "from")
  (data (i32.const 32) "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\02")
  (data (i32.const 64) "bad input")
  (data (i32.const 80) "not the dispatcher")

  (func (export "submit")
    (local $len i32) (local $data i32)
    (local.set $len (call $input_len))
    (if (i32.lt_u (local.get $len) (i32.const 17))
      (then (call $revert (i32.const 64) (i32.const 9))))
    (if (i32.gt_u (local.get $len) (i32.const 61440))
      (then (call $revert (i32.const 64) (i32.const 9))))
    (call $input_read (i32.const 4096))
    (if (call $job_submit
          (i32.const 4112) (i32.sub (local.get $len) (i32.const 16)) (i32.const 4096) (i64.const 0))
      (then
        ;; The dispatcher's answer ("E16xx: ...") is at most a few hundred bytes.
        (local.set $data (call $return_data_len))
        (if (i32.gt_u (local.get $data) (i32.const 1024)) (then (local.set $data (i32.const 1024))))
        (call $return_data_read (i32.const 2048))
        (call $revert (i32.const 2048) (local.get $data))))
    (local.set $data (call $return_data_len))
    (call $return_data_read (i32.const 2048))
    (call $storage_set (i32.const 0) (i32.const 3) (i32.const 2048) (local.get $data)))

  (func (export "on_job")
    (local $len i32)
    (call $caller (i32.const 1024))
    (if (i32.or
          (i64.ne (i64.load (i32.const 1024)) (i64.load (i32.const 32)))
          (i32.or
            (i64.ne (i64.load (i32.const 1032)) (i64.load (i32.const 40)))
            (i32.ne (i32.load (i32.const 1040)) (i32.load (i32.const 48)))))
      (then (call $revert (i32.const 80) (i32.const 18))))
    (local.set $len (call $input_len))
    (if (i32.gt_u (local.get $len) (i32.const 61440))
      (then (call $revert (i32.const 64) (i32.const 9))))
    (call $input_read (i32.const 4096))
    (if (i32.lt_u (local.get $len) (i32.const 42))
      (then (call $revert (i32.const 64) (i32.const 9))))
    (call $storage_set (i32.const 8) (i32.const 6) (i32.const 4096) (local.get $len))
    (call $storage_set (i32.const 4106) (i32.const 32) (i32.const 4096) (local.get $len))
    (call $storage_set (i32.const 16) (i32.const 4) (i32.const 1024) (i32.const 20))))

;; Hostile: returns a result of MAX_RESULT_BYTES + 1 bytes (65,537). Fails with E1207.
;;   big   65,537 bytes: refused
;;   fits  65,536 bytes: accepted
(module
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 2)
  (func (export "big")
    (call $set_result (i32.const 0) (i32.const 65537)))
  (func (export "fits")
    (call $set_result (i32.const 0) (i32.const 65536))))

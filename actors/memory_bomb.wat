;; Hostile: grows memory without end. Growth past MAX_MEMORY_PAGES traps with E1204.
;;   grow      grows 16 pages at a time, forever
;;   grow_big  asks for 1,000 pages (62.5 MiB) at once
;;   grow_ok   grows by one page and returns the new size in pages (u32 LE): within the limit
(module
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "grow")
    (loop $more
      (drop (memory.grow (i32.const 16)))
      (br $more)))
  (func (export "grow_big")
    (drop (memory.grow (i32.const 1000))))
  (func (export "grow_ok")
    (drop (memory.grow (i32.const 1)))
    (i32.store (i32.const 0) (memory.size))
    (call $set_result (i32.const 0) (i32.const 4))))

;; Hostile: never returns. Stopped when its cycles run out (E1005), using exactly its budget.
(module
  (func (export "spin")
    (loop $forever (br $forever))))

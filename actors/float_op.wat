;; Hostile: uses a floating-point instruction. Refused at deploy with E1101.
(module
  (func (export "add")
    (drop (f32.add (f32.const 1.5) (f32.const 2.25)))))

;; badkernel: imports a kernel function with the wrong signature.
(module
  (import "extism:host/env" "alloc" (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "describe") (result i32) (i32.const 0))
  (func (export "call") (result i32) (i32.const 0)))

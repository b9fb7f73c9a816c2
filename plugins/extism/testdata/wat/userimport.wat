;; userimport: an Extism module that needs a host function of its own host.
(module
  (import "extism:host/user" "lookup" (func (param i64) (result i64)))
  (memory (export "memory") 1)
  (func (export "describe") (result i32) (i32.const 0))
  (func (export "call") (result i32) (i32.const 0)))

;; talon_describe never returns.
;; Assemble with: wat2wasm -o loopdescribe.wasm loopdescribe.wat
(module
  (memory (export "memory") 2)
  ;; a bump allocator from 4096; talon_free forgets nothing
  (global $next (mut i32) (i32.const 4096))
  (func (export "talon_abi_version") (result i32) (i32.const 1))
  (func (export "talon_alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $next))
    (global.set $next (i32.add (global.get $next) (i32.add (local.get $n) (i32.const 8))))
    (local.get $p))
  (func (export "talon_free") (param i32))
  (func (export "talon_describe") (result i64)
    (loop $forever (br $forever))
    (i64.const 0))
  (func (export "talon_call") (param $ptr i32) (param $len i32) (result i64)
    (i64.const 0))
)

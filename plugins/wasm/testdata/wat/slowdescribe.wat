;; talon_describe counts to 2^22 before it answers: a plugin that is slow to
;; describe itself, but not past the describe deadline.
;; Assemble with: wat2wasm -o slowdescribe.wasm slowdescribe.wat
(module
  (memory (export "memory") 2)
  (data (i32.const 8192) "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}")
  ;; the describe document lives at 16
  (data (i32.const 16) "{\"tools\":[{\"name\":\"run\",\"description\":\"Misbehaves.\",\"inputSchema\":{\"type\":\"object\"},\"tier\":\"low\"}]}")
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
    (local $i i64)
    (local.set $i (i64.const 0x400000))
    (loop $count
      (local.set $i (i64.sub (local.get $i) (i64.const 1)))
      (br_if $count (i64.ne (local.get $i) (i64.const 0))))
    (i64.const 68719476835))
  (func (export "talon_call") (param $ptr i32) (param $len i32) (result i64)
    (i64.const 35184372088875))
)

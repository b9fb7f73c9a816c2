;; talon_call grows its memory to 26 MiB on its first call, writing to every
;; 4 KiB of it, and answers: an instance that stays large but under the
;; growth that gets an instance replaced, so it is kept warm in the pool.
;; Assemble with: wat2wasm -o toucher.wasm toucher.wat
(module
  (memory (export "memory") 2)
  (data (i32.const 8192) "{\"content\":[{\"type\":\"text\",\"text\":\"grown\"}]}")
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
    (i64.const 68719476835))
  (func (export "talon_call") (param $ptr i32) (param $len i32) (result i64)
    (local $off i32)
    (if (i32.lt_u (memory.size) (i32.const 416))
      (then
        (drop (memory.grow (i32.sub (i32.const 416) (memory.size))))
        (local.set $off (i32.const 131072))
        (loop $touch
          (i32.store8 (local.get $off) (i32.const 1))
          (local.set $off (i32.add (local.get $off) (i32.const 4096)))
          (br_if $touch (i32.lt_u (local.get $off) (i32.const 27262976))))))
    (i64.const 35184372088876))
)

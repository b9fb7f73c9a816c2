;; talon_call grows its memory a page at a time, writing to every 4 KiB of
;; each new page, until memory.grow fails, then never returns: a greedy
;; plugin that takes all the memory it may and holds it until its deadline.
;; Assemble with: wat2wasm -o hog.wasm hog.wat
(module
  (memory (export "memory") 2)
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
    (local $page i32)
    (local $off i32)
    (block $full
      (loop $grow
        (local.set $page (memory.grow (i32.const 1)))
        (br_if $full (i32.eq (local.get $page) (i32.const -1)))
        (local.set $off (i32.const 0))
        (loop $touch
          (i32.store8 (i32.add (i32.mul (local.get $page) (i32.const 65536)) (local.get $off)) (i32.const 1))
          (local.set $off (i32.add (local.get $off) (i32.const 4096)))
          (br_if $touch (i32.lt_u (local.get $off) (i32.const 65536))))
        (br $grow)))
    (loop $forever (br $forever))
    (i64.const 0))
)

;; wat-echo: a talon plugin written by hand in WebAssembly text, to show
;; that ABI v1 (plugins/ABI.md) needs nothing from Go. Its one tool, echo_args,
;; returns the call document it received as structured content, and logs
;; a line through the host's log function.
;;
;; Assemble with wabt:  wat2wasm -o echo.wasm echo.wat
(module
  ;; log(level, ptr, len): a host function of ABI v1
  (import "talon_host_v1" "log" (func $log (param i32 i32 i32)))

  (memory (export "memory") 1)

  ;; talon_describe's document, at 16
  (data (i32.const 16) "{\"tools\":[{\"name\":\"echo_args\",\"description\":\"Return the arguments as they were given.\",\"inputSchema\":{\"type\":\"object\"},\"tier\":\"low\"}]}")
  ;; the text logged on each call, at 512 (15 bytes)
  (data (i32.const 512) "echo was called")
  ;; the wrapper around the echoed document: 34 bytes at 768, 1 at 832
  (data (i32.const 768) "{\"content\":[],\"structuredContent\":")
  (data (i32.const 832) "}")

  ;; A bump allocator over the memory from 1024. talon_free releases
  ;; everything when the last buffer is freed, which is enough for a host
  ;; that frees both buffers of a call before the next one.
  (global $next (mut i32) (i32.const 1024))
  (global $live (mut i32) (i32.const 0))

  (func (export "talon_abi_version") (result i32) (i32.const 1))

  (func $alloc (export "talon_alloc") (param $n i32) (result i32)
    (local $p i32)
    (local $end i32)
    (local.set $p (global.get $next))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    ;; grow the memory when the buffer does not fit
    (block $fits
      (br_if $fits (i32.le_u (local.get $end) (i32.mul (memory.size) (i32.const 65536))))
      (br_if $fits (i32.ne (memory.grow
        (i32.add (i32.shr_u (i32.sub (local.get $end) (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1)))
        (i32.const -1)))
      (return (i32.const 0)))
    (global.set $next (i32.and (i32.add (local.get $end) (i32.const 7)) (i32.const -8)))
    (global.set $live (i32.add (global.get $live) (i32.const 1)))
    (local.get $p))

  (func (export "talon_free") (param $p i32)
    (global.set $live (i32.sub (global.get $live) (i32.const 1)))
    (if (i32.le_s (global.get $live) (i32.const 0))
      (then
        (global.set $live (i32.const 0))
        (global.set $next (i32.const 1024)))))

  ;; 134 bytes at 16
  (func (export "talon_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 134)))

  ;; talon_call(ptr, len): copy the wrapper, the request and "}" into a
  ;; new buffer and return it.
  (func (export "talon_call") (param $ptr i32) (param $len i32) (result i64)
    (local $out i32)
    (local $n i32)
    (call $log (i32.const 1) (i32.const 512) (i32.const 15))
    (local.set $n (i32.add (local.get $len) (i32.const 35)))
    (local.set $out (call $alloc (local.get $n)))
    (if (i32.eqz (local.get $out)) (then (return (i64.const 0))))
    (memory.copy (local.get $out) (i32.const 768) (i32.const 34))
    (memory.copy (i32.add (local.get $out) (i32.const 34)) (local.get $ptr) (local.get $len))
    (memory.copy (i32.add (local.get $out) (i32.add (local.get $len) (i32.const 34))) (i32.const 832) (i32.const 1))
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
      (i64.extend_i32_u (local.get $n))))
)

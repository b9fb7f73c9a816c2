;; misbehave: an MCP servlet whose tools each misbehave in one way; call
;; dispatches on the first letter of the tool name, at byte 19 of the
;; request {"params":{"name":"...
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"tools\":[{\"name\":\"garbage\"},{\"name\":\"object\"},{\"name\":\"trap\"},{\"name\":\"loop\"},{\"name\":\"big\"},{\"name\":\"error\"},{\"name\":\"valid\"}]}")
  (data (i32.const 600) "this is not JSON")
  (data (i32.const 700) "{\"tool\":\"object\",\"answer\":42}")
  (data (i32.const 800) "{\"content\":[{\"type\":\"text\",\"text\":\"fine\"}]}")
  (data (i32.const 900) "misbehave failed on purpose")
  (func $out (param $ptr i32) (param $len i32)
    (local $k i64) (local $i i32)
    (local.set $k (call $alloc (i64.extend_i32_u (local.get $len))))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $k) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (call $output_set (local.get $k) (i64.extend_i32_u (local.get $len))))

  (func (export "describe") (result i32)
    (call $out (i32.const 16) (i32.const 129))
    (i32.const 0))
  (func (export "call") (result i32)
    (local $c i32) (local $k i64)
    (local.set $c (call $input_load_u8 (i64.const 19)))
    ;; garbage: output that is not JSON
    (if (i32.eq (local.get $c) (i32.const 103))
      (then (call $out (i32.const 600) (i32.const 16)) (return (i32.const 0))))
    ;; object: JSON that is not a CallToolResult
    (if (i32.eq (local.get $c) (i32.const 111))
      (then (call $out (i32.const 700) (i32.const 29)) (return (i32.const 0))))
    ;; trap
    (if (i32.eq (local.get $c) (i32.const 116)) (then unreachable))
    ;; loop: forever
    (if (i32.eq (local.get $c) (i32.const 108))
      (then (loop $forever (br $forever))))
    ;; big: two MiB of output
    (if (i32.eq (local.get $c) (i32.const 98))
      (then
        (local.set $k (call $alloc (i64.const 2097152)))
        (call $output_set (local.get $k) (i64.const 2097152))
        (return (i32.const 0))))
    ;; error: error_set and a non-zero return
    (if (i32.eq (local.get $c) (i32.const 101))
      (then
        (local.set $k (call $alloc (i64.const 27)))
        (call $copy_in (local.get $k) (i32.const 900) (i32.const 27))
        (call $error_set (local.get $k))
        (return (i32.const 1))))
    (call $out (i32.const 800) (i32.const 43))
    (i32.const 0))
  (func $copy_in (param $k i64) (param $ptr i32) (param $len i32)
    (local $i i32)
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $k) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))))

;; plain: an Extism module that is not a servlet; plugin.toml's [[tools]]
;; maps its exports to tools. reverse returns its input reversed byte by
;; byte (the arguments JSON, backwards); it fails on an empty input.
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 900) "plain: the input is empty")
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

  (func (export "reverse") (result i32)
    (local $n i64) (local $i i64) (local $k i64)
    (local.set $n (call $input_length))
    (if (i64.eqz (local.get $n))
      (then
        (local.set $k (call $alloc (i64.const 25)))
        (local.set $i (i64.const 0))
        (block $d (loop $c
          (br_if $d (i64.ge_u (local.get $i) (i64.const 25)))
          (call $store_u8 (i64.add (local.get $k) (local.get $i))
            (i32.load8_u (i32.add (i32.const 900) (i32.wrap_i64 (local.get $i)))))
          (local.set $i (i64.add (local.get $i) (i64.const 1)))
          (br $c)))
        (call $error_set (local.get $k))
        (return (i32.const 1))))
    (local.set $k (call $alloc (local.get $n)))
    (block $done
      (loop $copy
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (call $store_u8
          (i64.add (local.get $k) (i64.sub (i64.sub (local.get $n) (i64.const 1)) (local.get $i)))
          (call $input_load_u8 (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $copy)))
    (call $output_set (local.get $k) (local.get $n))
    (i32.const 0))
  (func (export "wrongtype") (param i32) (result i32) (local.get 0)))

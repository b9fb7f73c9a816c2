;; servlet: the smallest MCP servlet, written by hand against the Extism
;; kernel. describe lists one tool, "shout"; call returns the call's input
;; (the CallToolRequest document) as text, so a test sees exactly what the
;; host sent.
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"tools\":[{\"name\":\"shout\",\"description\":\"Return the request.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}]}")
  (global $describe_len i32 (i32.const 136))
  (data (i32.const 512) "{\"content\":[{\"type\":\"text\",\"text\":")
  (data (i32.const 600) "}]}")

  ;; out copies len bytes at ptr of this memory into a kernel block and makes
  ;; it the output.
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
    (call $out (i32.const 16) (global.get $describe_len))
    (i32.const 0))

  ;; call answers {"content":[{"type":"text","text":<input as a JSON string>}]}:
  ;; the input is a JSON object, so it is quoted by escaping its quotes.
  (func (export "call") (result i32)
    (local $n i32) (local $i i32) (local $o i32) (local $c i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    ;; the prefix is 34 bytes at 512; the document is built at 1024
    (memory.copy (i32.const 1024) (i32.const 512) (i32.const 34))
    (local.set $o (i32.const 1058))
    (i32.store8 (local.get $o) (i32.const 34)) ;; opening quote
    (local.set $o (i32.add (local.get $o) (i32.const 1)))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
          (then
            (i32.store8 (local.get $o) (i32.const 92))
            (local.set $o (i32.add (local.get $o) (i32.const 1)))))
        (i32.store8 (local.get $o) (local.get $c))
        (local.set $o (i32.add (local.get $o) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (i32.store8 (local.get $o) (i32.const 34)) ;; closing quote
    (local.set $o (i32.add (local.get $o) (i32.const 1)))
    (memory.copy (local.get $o) (i32.const 600) (i32.const 3))
    (local.set $o (i32.add (local.get $o) (i32.const 3)))
    (call $out (i32.const 1024) (i32.sub (local.get $o) (i32.const 1024)))
    (i32.const 0))
)

;; start: an ABI v1 module with a start section, which the host runs when
;; it creates each instance, before _initialize; its tool says whether it
;; ran.
(module
  (memory (export "memory") 1)
  (global $started (mut i32) (i32.const 0))
  (func $init (global.set $started (i32.const 1)))
  (start $init)
  (data (i32.const 256) "{\"tools\":[{\"name\":\"started\",\"tier\":\"low\"}]}")
  (data (i32.const 512) "{\"content\":[{\"type\":\"text\",\"text\":\"the start function ran\"}]}")
  (data (i32.const 640) "{\"content\":[{\"type\":\"text\",\"text\":\"the start function did not run\"}]}")
  (func (export "talon_abi_version") (result i32) (i32.const 1))
  (func (export "talon_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "talon_free") (param i32))
  (func (export "talon_describe") (result i64)
    (i64.or (i64.shl (i64.const 256) (i64.const 32)) (i64.const 43)))
  (func (export "talon_call") (param i32 i32) (result i64)
    (if (result i64) (global.get $started)
      (then (i64.or (i64.shl (i64.const 512) (i64.const 32)) (i64.const 61)))
      (else (i64.or (i64.shl (i64.const 640) (i64.const 32)) (i64.const 69))))))

;; abort: an ABI v1 module as AssemblyScript builds one by default: it
;; imports env.abort, and its one tool aborts with a message, which the host
;; turns into a trap carrying it. AssemblyScript strings are UTF-16LE with
;; their length in bytes in the four bytes before them.
(module
  (import "env" "abort" (func $abort (param i32 i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 28) "\08\00\00\00b\00o\00o\00m\00")
  (data (i32.const 60) "\10\00\00\00i\00n\00d\00e\00x\00.\00t\00s\00")
  (data (i32.const 256) "{\"tools\":[{\"name\":\"explode\",\"tier\":\"low\"}]}")
  (func (export "talon_abi_version") (result i32) (i32.const 1))
  (func (export "talon_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "talon_free") (param i32))
  (func (export "talon_describe") (result i64)
    (i64.or (i64.shl (i64.const 256) (i64.const 32)) (i64.const 43)))
  (func (export "talon_call") (param i32 i32) (result i64)
    (call $abort (i32.const 32) (i32.const 64) (i32.const 3) (i32.const 5))
    unreachable))

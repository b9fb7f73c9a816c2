;; noexports: an Extism module that is not a servlet and exports only
;; functions no plugin.toml maps to tools.
(module
  (memory (export "memory") 1)
  (func (export "count_vowels") (result i32) (i32.const 0))
  (func (export "helper") (param i32) (result i32) (local.get 0)))

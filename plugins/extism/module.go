package extism

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// A module's imports, read from its binary, and the one change talon makes
// to them: the kernel functions whose behaviour talon owns (config, HTTP,
// logging) are renamed from extism:host/env to talon's own import module,
// so that they reach talon's grants instead of the SDK's defaults, while
// every other kernel function stays the SDK's. The guest's code is not
// touched; only the module name of those imports changes.

// imp is one import of a module.
type imp struct {
	module, name string
	kind         byte   // 0 function, 1 table, 2 memory, 3 global, 4 tag
	typeIdx      uint32 // a function's type
}

// funcType is a function's signature; value types are the binary's
// bytes (0x7f i32, 0x7e i64, 0x7d f32, 0x7c f64).
type funcType struct {
	params, results string
}

// String renders the signature as (i32, i64) -> (i64).
func (t funcType) String() string {
	name := func(ts string) string {
		parts := make([]string, len(ts))
		for i := range len(ts) {
			switch ts[i] {
			case 0x7f:
				parts[i] = "i32"
			case 0x7e:
				parts[i] = "i64"
			case 0x7d:
				parts[i] = "f32"
			case 0x7c:
				parts[i] = "f64"
			default:
				parts[i] = fmt.Sprintf("%#x", ts[i])
			}
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return name(t.params) + " -> " + name(t.results)
}

// Value types as funcType holds them.
const (
	i32 = "\x7f"
	i64 = "\x7e"
)

// moduleInfo is what the host reads from a module's binary before
// compiling it: its imports and the signatures of its function imports
// and exports.
type moduleInfo struct {
	imports []imp
	// importTypes and exports hold function signatures by name; imports
	// are keyed "module\x00name".
	importTypes map[string]funcType
	exports     map[string]funcType
	// memory reports whether the module exports a memory.
	memory bool
}

// Sections the host reads.
const (
	sectionType     = 1
	sectionFunction = 3
	sectionExport   = 7
)

// readModule decodes the type, import, function and export sections of
// bin: enough to check a module's imports and exports without compiling
// it. Anything it does not understand is refused rather than guessed at.
func readModule(bin []byte) (*moduleInfo, error) {
	secs, err := sections(bin)
	if err != nil {
		return nil, err
	}
	info := &moduleInfo{importTypes: map[string]funcType{}, exports: map[string]funcType{}}
	var types []funcType
	var funcs []uint32 // type index of each function the module defines
	var funcImports []uint32
	for _, s := range secs {
		content := bin[s.start:s.end]
		switch s.id {
		case sectionType:
			if types, err = readTypes(content); err != nil {
				return nil, err
			}
		case sectionImport:
			if info.imports, err = readImports(content); err != nil {
				return nil, err
			}
			for _, im := range info.imports {
				if im.kind == importFunc {
					funcImports = append(funcImports, im.typeIdx)
				}
			}
		case sectionFunction:
			if funcs, err = readIndices(content); err != nil {
				return nil, err
			}
		case sectionExport:
			exps, err := readExports(content)
			if err != nil {
				return nil, err
			}
			for _, e := range exps {
				switch e.kind {
				case importFunc:
					var ti uint32
					switch {
					case uint64(e.index) < uint64(len(funcImports)):
						ti = funcImports[e.index]
					case uint64(e.index)-uint64(len(funcImports)) < uint64(len(funcs)):
						ti = funcs[e.index-uint32(len(funcImports))]
					default:
						return nil, fmt.Errorf("%w: export %q names function %d, which does not exist", errBinary, e.name, e.index)
					}
					if uint64(ti) >= uint64(len(types)) {
						return nil, fmt.Errorf("%w: export %q has type %d, which does not exist", errBinary, e.name, ti)
					}
					info.exports[e.name] = types[ti]
				case importMemory:
					if e.name == "memory" {
						info.memory = true
					}
				}
			}
		}
	}
	for _, im := range info.imports {
		if im.kind != importFunc {
			continue
		}
		if uint64(im.typeIdx) >= uint64(len(types)) {
			return nil, fmt.Errorf("%w: import %s.%s has type %d, which does not exist", errBinary, im.module, im.name, im.typeIdx)
		}
		info.importTypes[im.module+"\x00"+im.name] = types[im.typeIdx]
	}
	return info, nil
}

// readTypes decodes a type section. Only plain function types are read:
// the garbage collection proposal's recursive and sub types are refused.
func readTypes(content []byte) ([]funcType, error) {
	r := &reader{b: content}
	n, err := r.leb()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(content)) {
		return nil, fmt.Errorf("%w: %d types in %d bytes", errBinary, n, len(content))
	}
	out := make([]funcType, 0, n)
	for range n {
		form, err := r.byte()
		if err != nil {
			return nil, err
		}
		if form != 0x60 {
			return nil, fmt.Errorf("%w: a type of form %#x (only function types are read)", errBinary, form)
		}
		var t funcType
		for j := range 2 {
			m, err := r.leb()
			if err != nil {
				return nil, err
			}
			vs, err := r.bytes(m)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				switch v {
				case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
				default:
					return nil, fmt.Errorf("%w: value type %#x", errBinary, v)
				}
			}
			if j == 0 {
				t.params = string(vs)
			} else {
				t.results = string(vs)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// readIndices decodes a vector of u32 indices (the function section).
func readIndices(content []byte) ([]uint32, error) {
	r := &reader{b: content}
	n, err := r.leb()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(content)) {
		return nil, fmt.Errorf("%w: %d functions in %d bytes", errBinary, n, len(content))
	}
	out := make([]uint32, 0, n)
	for range n {
		v, err := r.leb()
		if err != nil {
			return nil, err
		}
		if v > 0xffffffff {
			return nil, fmt.Errorf("%w: index %d", errBinary, v)
		}
		out = append(out, uint32(v))
	}
	return out, nil
}

// export is one entry of the export section.
type export struct {
	name  string
	kind  byte
	index uint32
}

func readExports(content []byte) ([]export, error) {
	r := &reader{b: content}
	n, err := r.leb()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(content)) {
		return nil, fmt.Errorf("%w: %d exports in %d bytes", errBinary, n, len(content))
	}
	out := make([]export, 0, n)
	for range n {
		var e export
		if e.name, err = r.name(); err != nil {
			return nil, err
		}
		if e.kind, err = r.byte(); err != nil {
			return nil, err
		}
		v, err := r.leb()
		if err != nil {
			return nil, err
		}
		if v > 0xffffffff {
			return nil, fmt.Errorf("%w: index %d", errBinary, v)
		}
		e.index = uint32(v)
		out = append(out, e)
	}
	return out, nil
}

// Wasm binary constants.
const (
	sectionImport = 2
	importFunc    = 0x00
	importTable   = 0x01
	importMemory  = 0x02
	importGlobal  = 0x03
	importTag     = 0x04
)

var (
	wasmMagic = []byte{0x00, 'a', 's', 'm'}
	// errBinary is wrapped by every refusal of a module's bytes.
	errBinary = errors.New("not a WebAssembly module talon can read")
)

// reader reads a WebAssembly binary.
type reader struct {
	b   []byte
	off int
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, fmt.Errorf("%w: it ends early", errBinary)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// leb reads an unsigned LEB128 of at most 64 bits.
func (r *reader) leb() (uint64, error) {
	var v uint64
	for shift := 0; shift < 70; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: an integer is too long", errBinary)
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) {
		return nil, fmt.Errorf("%w: it ends early", errBinary)
	}
	out := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return out, nil
}

func (r *reader) name() (string, error) {
	n, err := r.leb()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	return string(b), err
}

// limits skips a table's or a memory's limits.
func (r *reader) limits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if flags > 0x07 {
		return fmt.Errorf("%w: limits flags %#x", errBinary, flags)
	}
	if _, err := r.leb(); err != nil {
		return err
	}
	if flags&0x01 != 0 {
		_, err = r.leb()
	}
	return err
}

// section is one section of a module: its id and where its content is.
type section struct {
	id         byte
	start, end int // the content, after id and size
	head       int // where the section starts (its id)
}

// sections splits a module into its sections.
func sections(bin []byte) ([]section, error) {
	if len(bin) < 8 || !bytes.Equal(bin[:4], wasmMagic) {
		return nil, fmt.Errorf("%w: it does not start with the WebAssembly magic number", errBinary)
	}
	r := &reader{b: bin, off: 8}
	var out []section
	for r.off < len(bin) {
		head := r.off
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.leb()
		if err != nil {
			return nil, err
		}
		start := r.off
		if _, err := r.bytes(size); err != nil {
			return nil, err
		}
		out = append(out, section{id: id, start: start, end: r.off, head: head})
	}
	return out, nil
}

// readImports decodes an import section's content.
func readImports(content []byte) ([]imp, error) {
	r := &reader{b: content}
	n, err := r.leb()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(content)) {
		return nil, fmt.Errorf("%w: %d imports in %d bytes", errBinary, n, len(content))
	}
	out := make([]imp, 0, n)
	for range n {
		var im imp
		if im.module, err = r.name(); err != nil {
			return nil, err
		}
		if im.name, err = r.name(); err != nil {
			return nil, err
		}
		if im.kind, err = r.byte(); err != nil {
			return nil, err
		}
		switch im.kind {
		case importFunc:
			var ti uint64
			if ti, err = r.leb(); err == nil && ti > 0xffffffff {
				err = fmt.Errorf("%w: type index %d", errBinary, ti)
			}
			im.typeIdx = uint32(ti)
		case importTable:
			var ref byte
			if ref, err = r.byte(); err == nil {
				if ref != 0x70 && ref != 0x6f {
					return nil, fmt.Errorf("%w: import %s.%s is a table of type %#x", errBinary, im.module, im.name, ref)
				}
				err = r.limits()
			}
		case importMemory:
			err = r.limits()
		case importGlobal:
			var vt byte
			if vt, err = r.byte(); err == nil {
				switch vt {
				case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
				default:
					return nil, fmt.Errorf("%w: import %s.%s is a global of type %#x", errBinary, im.module, im.name, vt)
				}
				_, err = r.byte()
			}
		case importTag:
			if _, err = r.byte(); err == nil {
				_, err = r.leb()
			}
		default:
			return nil, fmt.Errorf("%w: import %s.%s has kind %#x", errBinary, im.module, im.name, im.kind)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, im)
	}
	if r.off != len(content) {
		return nil, fmt.Errorf("%w: the import section has %d bytes left over", errBinary, len(content)-r.off)
	}
	return out, nil
}

// moduleImports returns a module's imports, in order.
func moduleImports(bin []byte) ([]imp, error) {
	secs, err := sections(bin)
	if err != nil {
		return nil, err
	}
	for _, s := range secs {
		if s.id == sectionImport {
			return readImports(bin[s.start:s.end])
		}
	}
	return nil, nil
}

// redirect returns bin with the module name of every function import
// from module `from` whose name is in names changed to `to`. Only the
// import section is rewritten; changed is false when no import matched
// (bin is then returned as it is).
func redirect(bin []byte, from, to string, names map[string]bool) (out []byte, changed bool, err error) {
	secs, err := sections(bin)
	if err != nil {
		return nil, false, err
	}
	for _, s := range secs {
		if s.id != sectionImport {
			continue
		}
		imps, err := readImports(bin[s.start:s.end])
		if err != nil {
			return nil, false, err
		}
		var content bytes.Buffer
		content.Write(uleb(uint64(len(imps))))
		r := &reader{b: bin[s.start:s.end]}
		if _, err := r.leb(); err != nil {
			return nil, false, err
		}
		for _, im := range imps {
			begin := r.off
			// Skip the two names, then copy the rest of the entry as it is.
			if _, err := r.name(); err != nil {
				return nil, false, err
			}
			afterModule := r.off
			if _, err := r.name(); err != nil {
				return nil, false, err
			}
			if err := skipDesc(r, im.kind); err != nil {
				return nil, false, err
			}
			mod := bin[s.start+begin : s.start+afterModule]
			if im.kind == importFunc && im.module == from && names[im.name] {
				mod = append(uleb(uint64(len(to))), to...)
				changed = true
			}
			content.Write(mod)
			content.Write(bin[s.start+afterModule : s.start+r.off])
		}
		if !changed {
			return bin, false, nil
		}
		out = make([]byte, 0, len(bin)+content.Len()-(s.end-s.start)+8)
		out = append(out, bin[:s.head]...)
		out = append(out, sectionImport)
		out = append(out, uleb(uint64(content.Len()))...)
		out = append(out, content.Bytes()...)
		out = append(out, bin[s.end:]...)
		return out, true, nil
	}
	return bin, false, nil
}

// skipDesc skips an import's description, whose kind was already read.
func skipDesc(r *reader, kind byte) error {
	if _, err := r.byte(); err != nil { // the kind
		return err
	}
	var err error
	switch kind {
	case importFunc:
		_, err = r.leb()
	case importTable:
		if _, err = r.byte(); err == nil {
			err = r.limits()
		}
	case importMemory:
		err = r.limits()
	case importGlobal:
		if _, err = r.byte(); err == nil {
			_, err = r.byte()
		}
	case importTag:
		if _, err = r.byte(); err == nil {
			_, err = r.leb()
		}
	}
	return err
}

// uleb encodes v as an unsigned LEB128.
func uleb(v uint64) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, c|0x80)
			continue
		}
		return append(out, c)
	}
}

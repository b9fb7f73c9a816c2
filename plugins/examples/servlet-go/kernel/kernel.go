//go:build wasip1

// Package kernel is the few bindings a Go plugin needs to the Extism
// kernel, the extism:host/env imports every Extism host provides: input,
// output, errors, config, variables, logging and HTTP. Extism's own Go PDK
// (github.com/extism/go-pdk) does the same and more, but is not on the Go
// module proxy this repository builds from, so the example carries these
// instead; a plugin built with the PDK runs the same way.
//
// Memory blocks live in the kernel's memory, not the module's: they are
// addressed by a 64-bit offset and copied in and out eight bytes at a time.
package kernel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
)

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env input_load_u64
func inputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env alloc
func alloc(size uint64) uint64

//go:wasmimport extism:host/env free
func free(offset uint64)

//go:wasmimport extism:host/env length
func length(offset uint64) uint64

//go:wasmimport extism:host/env load_u8
func loadU8(offset uint64) uint32

//go:wasmimport extism:host/env load_u64
func loadU64(offset uint64) uint64

//go:wasmimport extism:host/env store_u8
func storeU8(offset uint64, value uint32)

//go:wasmimport extism:host/env store_u64
func storeU64(offset, value uint64)

//go:wasmimport extism:host/env output_set
func outputSet(offset, length uint64)

//go:wasmimport extism:host/env error_set
func errorSet(offset uint64)

//go:wasmimport extism:host/env config_get
func configGet(offset uint64) uint64

//go:wasmimport extism:host/env var_get
func varGet(offset uint64) uint64

//go:wasmimport extism:host/env var_set
func varSet(name, value uint64)

//go:wasmimport extism:host/env http_request
func httpRequest(request, body uint64) uint64

//go:wasmimport extism:host/env http_status_code
func httpStatusCode() int32

//go:wasmimport extism:host/env log_debug
func logDebug(offset uint64)

//go:wasmimport extism:host/env log_info
func logInfo(offset uint64)

//go:wasmimport extism:host/env log_warn
func logWarn(offset uint64)

//go:wasmimport extism:host/env log_error
func logError(offset uint64)

// Input returns the call's input.
func Input() []byte {
	n := inputLength()
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], inputLoadU64(i))
	}
	for ; i < n; i++ {
		buf[i] = byte(inputLoadU8(i))
	}
	return buf
}

// store copies b into a new kernel block and returns its offset.
func store(b []byte) uint64 {
	n := uint64(len(b))
	off := alloc(n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		storeU64(off+i, binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < n; i++ {
		storeU8(off+i, uint32(b[i]))
	}
	return off
}

// load copies a kernel block out.
func load(off uint64) []byte {
	n := length(off)
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], loadU64(off+i))
	}
	for ; i < n; i++ {
		buf[i] = byte(loadU8(off + i))
	}
	return buf
}

// Output sets the call's output.
func Output(b []byte) { outputSet(store(b), uint64(len(b))) }

// SetError sets the call's error; the export then returns non-zero.
func SetError(msg string) { errorSet(store([]byte(msg))) }

// Config returns the host's config value for key; ok is false when the
// host has none.
func Config(key string) (value string, ok bool) {
	k := store([]byte(key))
	defer free(k)
	off := configGet(k)
	if off == 0 {
		return "", false
	}
	defer free(off)
	return string(load(off)), true
}

// Var returns a variable of this plugin instance, nil when unset.
func Var(name string) []byte {
	off := varGet(store([]byte(name)))
	if off == 0 {
		return nil
	}
	defer free(off)
	return load(off)
}

// SetVar sets a variable of this plugin instance.
func SetVar(name string, value []byte) { varSet(store([]byte(name)), store(value)) }

// Level is a log level.
type Level int

// The log levels.
const (
	Debug Level = iota
	Info
	Warn
	Error
)

// Log writes msg to the host's log.
func Log(level Level, msg string) {
	off := store([]byte(msg))
	switch level {
	case Debug:
		logDebug(off)
	case Warn:
		logWarn(off)
	case Error:
		logError(off)
	default:
		logInfo(off)
	}
}

// Request is an HTTP request.
type Request struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// HTTP sends a request through the host, which decides where it may go;
// a refused request stops the plugin (the host traps it).
func HTTP(req Request, body []byte) (status int, respBody []byte, err error) {
	doc, err := json.Marshal(req)
	if err != nil {
		return 0, nil, err
	}
	var b uint64
	if len(body) > 0 {
		b = store(body)
	}
	off := httpRequest(store(doc), b)
	status = int(httpStatusCode())
	if off != 0 {
		respBody = load(off)
		free(off)
	}
	if status == 0 {
		return 0, respBody, errors.New("no response")
	}
	return status, respBody, nil
}

//go:build wasip1

package pdk

import (
	"errors"
	"runtime"
	"unsafe"
)

// Buffers handed to the host stay reachable here until talon_free.
var pinned = map[uint32][]byte{}

func pin(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	pinned[ptr] = b
	return ptr
}

//go:wasmexport talon_abi_version
func talonABIVersion() uint32 { return ABIVersion }

//go:wasmexport talon_alloc
func talonAlloc(n uint32) uint32 { return pin(make([]byte, n)) }

//go:wasmexport talon_free
func talonFree(ptr uint32) { delete(pinned, ptr) }

//go:wasmexport talon_describe
func talonDescribe() uint64 {
	b := describe()
	return uint64(pin(b))<<32 | uint64(len(b))
}

//go:wasmexport talon_call
func talonCall(ptr, n uint32) uint64 {
	var out []byte
	if buf, ok := pinned[ptr]; ok && uint32(len(buf)) >= n {
		out = handle(buf[:n])
	} else {
		out = encode(Errorf("talon_call: the request is not in a buffer from talon_alloc"))
	}
	return uint64(pin(out))<<32 | uint64(len(out))
}

//go:wasmimport talon_host_v1 log
func importLog(level int32, ptr, n uint32)

//go:wasmimport talon_host_v1 take
func importTake(ptr uint32) int32

//go:wasmimport talon_host_v1 config_get
func importConfigGet(ptr, n uint32) int32

//go:wasmimport talon_host_v1 secret_get
func importSecretGet(ptr, n uint32) int32

//go:wasmimport talon_host_v1 http_request
func importHTTPRequest(ptr, n uint32) int32

//go:wasmimport talon_host_v1 fs_read
func importFSRead(ptr, n uint32) int32

//go:wasmimport talon_host_v1 fs_write
func importFSWrite(ptr, n uint32) int32

//go:wasmimport talon_host_v1 fs_list
func importFSList(ptr, n uint32) int32

func addr(b []byte) (uint32, uint32) {
	if len(b) == 0 {
		return 0, 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint32(len(b))
}

func hostLog(level Level, msg string) {
	b := []byte(msg)
	p, n := addr(b)
	importLog(int32(level), p, n)
	runtime.KeepAlive(b)
}

// hostRequest calls one request host function and fetches its response
// with take. Each host function is a separate import so that a plugin
// imports only those it uses.
func hostRequest(fn string, req []byte) ([]byte, error) {
	p, n := addr(req)
	var size int32
	switch fn {
	case "config_get":
		size = importConfigGet(p, n)
	case "secret_get":
		size = importSecretGet(p, n)
	case "http_request":
		size = importHTTPRequest(p, n)
	case "fs_read":
		size = importFSRead(p, n)
	case "fs_write":
		size = importFSWrite(p, n)
	case "fs_list":
		size = importFSList(p, n)
	default:
		return nil, errors.New("unknown host function " + fn)
	}
	runtime.KeepAlive(req)
	if size < 0 {
		return nil, errors.New(fn + ": the host returned no response")
	}
	out := make([]byte, max(size, 1))
	got := importTake(uint32(uintptr(unsafe.Pointer(unsafe.SliceData(out)))))
	if got != size {
		return nil, errors.New(fn + ": the host's response went missing")
	}
	return out[:size], nil
}

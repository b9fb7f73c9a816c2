//go:build wasip1

// Command guest is the JSON echo tool of the Extism comparison. It does the
// same work as talon's bench-echo plugin built with talon's PDK: decode the
// call document {"name", "arguments"}, decode the arguments into a map,
// encode the map, and encode an MCP-shaped result carrying it as text and as
// structured content. It is a reactor with two entry points over that one
// implementation, reading and writing the same bytes:
//
//   - echo, called by the Extism host: input and output travel through the
//     extism:host/env kernel imports, as any Extism guest's do;
//   - bench_alloc / bench_echo / bench_free, called by a bare wazero host:
//     input and output travel through the guest's own memory, addressed by
//     pointer and length, with no host imports on the way.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o guest.wasm .
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unsafe"
)

func main() {}

// callDoc is the request: a tool name and its JSON arguments.
type callDoc struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// result is the response, shaped like MCP's CallToolResult.
type result struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func failed(format string, a ...any) result {
	return result{Content: []content{{Type: "text", Text: fmt.Sprintf(format, a...)}}, IsError: true}
}

// call answers one request document; a problem is a failed result, never
// a trap.
func call(req []byte) []byte {
	var c callDoc
	res := failed("the call document is not valid JSON")
	if err := json.Unmarshal(req, &c); err == nil {
		res = echo(c)
	}
	out, err := json.Marshal(res)
	if err != nil {
		out, _ = json.Marshal(failed("encode the result: %v", err))
	}
	return out
}

// echo is the tool: the arguments, decoded into a map and encoded again.
func echo(c callDoc) result {
	if c.Name != "echo" {
		return failed("unknown tool %q", c.Name)
	}
	var args map[string]any
	if err := json.Unmarshal(c.Arguments, &args); err != nil {
		return failed("%v", err)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return failed("%v", err)
	}
	return result{Content: []content{{Type: "text", Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

// The Extism kernel's imports. Offsets and lengths are i64 on the wasm side;
// bytes travel as i32.

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_load_u64
func extismInputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env input_load_u8
func extismInputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env alloc
func extismAlloc(size uint64) uint64

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offset, value uint64)

//go:wasmimport extism:host/env store_u8
func extismStoreU8(offset uint64, value uint32)

//go:wasmimport extism:host/env output_set
func extismOutputSet(offset, length uint64)

// extismInput copies the call's input out of kernel memory, eight bytes
// per host call and the tail one byte at a time.
func extismInput() []byte {
	n := extismInputLength()
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], extismInputLoadU64(i))
	}
	for ; i < n; i++ {
		buf[i] = byte(extismInputLoadU8(i))
	}
	return buf
}

// extismStore copies b into a fresh block of kernel memory and returns its
// offset.
func extismStore(b []byte) uint64 {
	n := uint64(len(b))
	offset := extismAlloc(n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		extismStoreU64(offset+i, binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < n; i++ {
		extismStoreU8(offset+i, uint32(b[i]))
	}
	return offset
}

// extismEcho is the Extism entry point. A failed result is still output:
// the call itself succeeded.
//
//go:wasmexport echo
func extismEcho() int32 {
	out := call(extismInput())
	extismOutputSet(extismStore(out), uint64(len(out)))
	return 0
}

// live holds the blocks handed to the bare host until it frees them, so
// the garbage collector leaves them in place.
var live = map[uint32][]byte{}

func keep(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	ptr := uint32(uintptr(unsafe.Pointer(&b[0])))
	live[ptr] = b
	return ptr
}

// benchAlloc returns a block of size bytes for the host to write into.
//
//go:wasmexport bench_alloc
func benchAlloc(size uint32) uint32 {
	return keep(make([]byte, size))
}

// benchFree releases a block returned by bench_alloc or bench_echo.
//
//go:wasmexport bench_free
func benchFree(ptr uint32) {
	delete(live, ptr)
}

// benchEcho is the bare entry point: it reads length bytes of the block at
// ptr and returns the output's pointer and length packed as
// ptr<<32 | length, or 0 when ptr is not a live block.
//
//go:wasmexport bench_echo
func benchEcho(ptr, length uint32) uint64 {
	in, ok := live[ptr]
	if !ok || int(length) > len(in) {
		return 0
	}
	out := call(in[:length])
	return uint64(keep(out))<<32 | uint64(len(out))
}

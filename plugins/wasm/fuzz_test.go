package wasm

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/talonhq/talon/tool"
)

// FuzzSpan checks the host's reading of a packed pointer/length: whatever
// a guest returns, an accepted span lies inside its memory, under the
// cap, and never at address 0.
func FuzzSpan(f *testing.F) {
	f.Add(pack(16, 10), uint32(65536), 1024)
	f.Add(pack(0, 0), uint32(65536), 1024)
	f.Add(pack(0xffffffff, 0xffffffff), uint32(1<<32-1), -1)
	f.Add(pack(65530, 10), uint32(65536), 1024)
	f.Add(pack(8, 2000), uint32(65536), 1024)
	f.Fuzz(func(t *testing.T, packed uint64, memSize uint32, limit int) {
		ptr, n, err := span(packed, memSize, limit)
		if err != nil {
			if !errors.Is(err, ErrBadResponse) && !errors.Is(err, ErrOutputTooLarge) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if ptr == 0 || uint64(ptr)+uint64(n) > uint64(memSize) || (limit >= 0 && int64(n) > int64(limit)) {
			t.Fatalf("accepted ptr %d len %d in %d bytes, limit %d", ptr, n, memSize, limit)
		}
		if pack(ptr, n) != packed {
			t.Fatalf("span(%#x) = %d, %d", packed, ptr, n)
		}
	})
}

// FuzzDecodeDescribe feeds talon_describe documents to the host: an
// accepted document has valid, unique names, object schemas and tiers.
func FuzzDecodeDescribe(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","description":"x","inputSchema":{"type":"object"},"tier":"low"}]}`))
	f.Add([]byte(`{"tools":[{"name":"a"},{"name":"a"}]}`))
	f.Add([]byte(`{"tools":[{"name":"bad name"}]}`))
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":[]}]}`))
	f.Add([]byte(`{"tools":[]} {}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tools, err := decodeDescribe(b)
		if err != nil {
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range tools {
			if tool.ValidateName(d.Name) != nil || seen[d.Name] {
				t.Fatalf("accepted name %q", d.Name)
			}
			seen[d.Name] = true
			var m map[string]any
			if json.Unmarshal(d.Input, &m) != nil {
				t.Fatalf("accepted schema %s", d.Input)
			}
			if d.Tier < tool.Low || d.Tier > tool.High {
				t.Fatalf("accepted tier %d", d.Tier)
			}
		}
	})
}

// FuzzDecodeResult feeds talon_call documents to the host: it never
// panics, and a failed result always says why.
func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"content":[{"type":"image","data":"..."}],"isError":true}`))
	f.Add([]byte(`{"content":[],"structuredContent":{"a":1}}`))
	f.Add([]byte(`{"content":[{"text":"x"}]}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := decodeResult(b)
		if err != nil {
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if res.Success && res.Error != "" {
			t.Fatalf("successful result with an error: %+v", res)
		}
		if !res.Success && res.Error == "" {
			t.Fatalf("failed result without a reason: %+v", res)
		}
	})
}

package extism

import (
	"testing"
)

func TestServletRoundTrip(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "servlet", wasm: watModule(t, "servlet")})
	tools := l.Tools()
	if len(tools) != 1 || tools[0].Spec().Name != "shout" || tools[0].Spec().Attribution.String() != "extism.servlet" {
		t.Fatalf("tools %+v", tools)
	}
	res := call(t, l, "shout", `{"text":"héllo"}`)
	wantText(t, res, `{"params":{"name":"shout","arguments":{"text":"héllo"}}}`)
}

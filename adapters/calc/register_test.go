package calc

import (
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	fac, ok := toolfactory.Get(Name)
	if !ok {
		t.Fatal("calculator is not registered")
	}
	if fac.Tier != tool.Low {
		t.Errorf("tier = %v, want low", fac.Tier)
	}
	tl, err := fac.New(toolfactory.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Spec().Name != Name {
		t.Errorf("spec name = %q", tl.Spec().Name)
	}
}

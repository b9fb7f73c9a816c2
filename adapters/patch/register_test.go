package patch

import (
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	fac, ok := toolfactory.Get(Name)
	if !ok {
		t.Fatal("apply_patch is not registered")
	}
	if fac.Tier != tool.Medium {
		t.Errorf("factory tier = %v, want medium", fac.Tier)
	}
	tl, err := fac.New(toolfactory.Env{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if spec := tl.Spec(); spec.Name != Name || spec.Tier != tool.Medium {
		t.Errorf("spec = %+v", spec)
	}
	if _, err := tool.CompileSchema(Name, tl.Spec().Input); err != nil {
		t.Fatal(err)
	}
	if _, err := fac.New(toolfactory.Env{}); err == nil {
		t.Error("New without a workspace succeeded")
	}
}

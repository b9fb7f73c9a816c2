package git

import (
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	fac, ok := toolfactory.Get(Name)
	if !ok {
		t.Fatal("git_operations is not registered")
	}
	if fac.Tier != tool.Low {
		t.Errorf("factory tier = %v, want low", fac.Tier)
	}
	// Construction needs neither git nor a repository.
	tl, err := fac.New(toolfactory.Env{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if spec := tl.Spec(); spec.Name != Name || spec.Attribution.String() != "builtin.git_operations" {
		t.Errorf("spec = %+v", spec)
	}
	if _, err := tool.CompileSchema(Name, tl.Spec().Input); err != nil {
		t.Fatal(err)
	}
	if _, err := fac.New(toolfactory.Env{}); err == nil {
		t.Error("New without a workspace succeeded")
	}
}

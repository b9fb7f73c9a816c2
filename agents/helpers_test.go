package agents_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	_ "github.com/talonhq/talon/adapters/calc"
	_ "github.com/talonhq/talon/adapters/fsx"
	_ "github.com/talonhq/talon/adapters/shell"
	_ "github.com/talonhq/talon/adapters/toolsearch"
	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/syncbuf"
	"github.com/talonhq/talon/models/modeltest"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "sk-agents-test-5f1e9a7c"

// fixture is a runtime with agents over a scripted model server.
type fixture struct {
	t        *testing.T
	dir      string // holds talon.toml and the agent files
	ws       string // the workspace
	srv      *modeltest.Server
	cfg      *config.Config
	set      *agents.Set
	rt       *runtime.Runtime
	storeDir string
	logs     *syncBuffer
}

type fixtureOptions struct {
	provider modeltest.Provider
	// config is talon.toml; {{URL}} becomes the server's URL. "" means
	// one model, m1, as [models.local] and [agents] model = "local".
	config string
	// files are written under the config's directory.
	files    map[string]string
	approver approval.Approver
	receipts bool
	locale   string
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	if o.provider == "" {
		o.provider = modeltest.OpenAI
	}
	f := &fixture{t: t, dir: t.TempDir(), ws: t.TempDir(), logs: &syncBuffer{}}
	f.srv = modeltest.New(o.provider)
	f.srv.Key = testKey
	t.Cleanup(f.srv.Close)
	if o.config == "" {
		o.config = baseConfig
	}
	for name, body := range o.files {
		p := filepath.Join(f.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := strings.ReplaceAll(o.config, "{{URL}}", f.srv.URL)
	src = strings.ReplaceAll(src, "{{PROVIDER}}", string(o.provider))
	cfg, _, err := config.Parse(filepath.Join(f.dir, "talon.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f.cfg = cfg
	log := zerolog.New(f.logs).Level(zerolog.DebugLevel)
	f.set, err = agents.Load(cfg, agents.Options{LookupEnv: lookup, Logger: log, Locale: o.locale})
	if err != nil {
		t.Fatal(err)
	}
	opts := runtime.Options{Config: cfg, Workspace: f.ws, DataDir: t.TempDir(), Tools: f.set.Tools,
		Approver: o.approver, Logger: log, ApprovalTimeout: 10 * time.Second}
	for _, m := range f.set.Messages {
		opts.Messages = append(opts.Messages, runtime.MessageSource{FS: m.FS, Source: m.Source})
	}
	if o.receipts {
		f.storeDir = t.TempDir()
		store, err := receipts.Open(receipts.Options{Dir: f.storeDir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		opts.Receipts = store
	}
	if f.rt, err = runtime.New(opts); err != nil {
		t.Fatal(err)
	}
	return f
}

func lookup(k string) (string, bool) {
	if k == "TEST_MODEL_KEY" {
		return testKey, true
	}
	return "", false
}

const baseConfig = `
[tools]
optional = ["*"]

[models.local]
provider = "{{PROVIDER}}"
base_url = "{{URL}}"
model = "m1"
api_key_env = "TEST_MODEL_KEY"
max_retries = 0

[agents]
dir = "agents"
model = "local"
`

// call runs an agent through the runtime's pipeline.
func (f *fixture) call(ctx context.Context, name string, args any) (tool.Result, error) {
	f.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.rt.Call(ctx, tool.Call{Name: name, Args: raw, SessionID: "s1"})
}

// mustCall runs an agent and fails the test on a hard error.
func (f *fixture) mustCall(name string, args any) tool.Result {
	f.t.Helper()
	res, err := f.call(context.Background(), name, args)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) write(name, body string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.ws, name), []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// receiptsOf lists the receipts of the store by tool.
func (f *fixture) receiptsOf(name string) []receipts.Receipt {
	f.t.Helper()
	all, err := receipts.List(f.storeDir, receipts.Filter{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []receipts.Receipt
	for _, r := range all {
		if r.Tool == name {
			out = append(out, r)
		}
	}
	return out
}

// agentFile writes the text of an agent file.
func agentFile(front, body string) string { return "---\n" + front + "\n---\n" + body + "\n" }

// recorder is an approver that records requests and answers.
type recorder struct {
	mu     sync.Mutex
	answer approval.Answer
	reqs   []approval.Request
}

func (r *recorder) Approve(_ context.Context, req approval.Request) (approval.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return r.answer, nil
}

func (r *recorder) requests() []approval.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]approval.Request(nil), r.reqs...)
}

// syncBuffer collects output written from several goroutines.
type syncBuffer = syncbuf.Buffer

func call(name, args string) modeltest.Call { return modeltest.Call{Name: name, Args: args} }

func runtimeView(locale string) runtime.ViewOptions {
	return runtime.ViewOptions{Locale: locale}
}

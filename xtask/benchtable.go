package main

// This file is the one place that pairs each benchmark with its baseline
// and its target. A row whose benchmarks are absent from the input is
// reported as not measured, so rows may name benchmarks that only some
// builds or machines run.

// benchKind says how a row turns its benchmarks into one figure.
type benchKind int

const (
	// benchRatio is Num ÷ Base.
	benchRatio benchKind = iota
	// benchOverhead is Num − Base, a time.
	benchOverhead
	// benchAbsolute is Num alone, in the row's unit.
	benchAbsolute
	// benchReported is a ratio the benchmark computed itself and reported as
	// a metric (both sides measured in one interleaved loop).
	benchReported
	// benchOverheadRatio is (Num − Base) ÷ (Num2 − Base2): one host's
	// overhead above its raw call against another's.
	benchOverheadRatio
)

// benchRow is one line of the report.
type benchRow struct {
	Title string
	Kind  benchKind
	// Num and Base are the measured benchmark and its baseline; Num2 and
	// Base2 are the second pair of a benchOverheadRatio row.
	Num, Base, Num2, Base2 benchKey
	// Unit is the metric read from each benchmark; "ns/op" when empty.
	Unit string
	// CPU compares CPU time per operation (cpu-ns/op) instead of wall
	// time when every benchmark of the row reports it: on a shared machine
	// wall time also counts waiting for a CPU.
	CPU bool
	// Max and Min bound the row's figure; a row with neither is
	// informational.
	Max, Min float64
	// Source is where the target comes from.
	Source string
}

const (
	benchUsec = 1e3 // in nanoseconds
	benchMsec = 1e6
)

// Sources of the targets.
const (
	srcBudget = "ARCHITECTURE.md, Performance budget"
	srcIssue7 = "issue 7 (WASM plugins)"
	// srcIssue17 is the shell's background work and terminals.
	srcIssue17 = "issue 17 (the shell's workdir, background and pty)"
	// srcIssue15 is the file tools through os.Root and the protected paths.
	srcIssue15 = "issue 15 (talon's state out of every tool's reach)"
	// srcIssue16 is many talon processes sharing one data dir.
	srcIssue16 = "issue 16 (many processes on one machine)"
	// srcIssue19 is speed where users feel it.
	srcIssue19 = "issue 19 (speed where users feel it)"
	// srcIssue21 is the console.
	srcIssue21 = "issue 21 (the console)"
	// srcIssue22 is the fleet: PostgreSQL and OpenTelemetry.
	srcIssue22 = "issue 22 (the fleet in PostgreSQL, telemetry in OpenTelemetry)"
)

func bref(pkg, name string) benchKey { return benchKey{Pkg: pkg, Name: name} }

// benchRows is the pairing table, in report order.
var benchRows = []benchRow{
	// Start-up: processes taking turns with an empty Go program in each
	// round (bench/start).
	{Title: "`talon --help`, process wall", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkStart/help"), Max: 8 * benchMsec, Source: srcBudget},
	{Title: "`talon tools list`, full catalog, process wall", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkStart/tools-list"), Max: 15 * benchMsec, Source: srcBudget},
	{Title: "`talon --help` against an empty Go binary, interleaved", Kind: benchReported,
		Num: bref("bench/start", "BenchmarkStart/ratio"), Unit: "help/empty"},
	{Title: "`talon tools list` against an empty Go binary, interleaved", Kind: benchReported,
		Num: bref("bench/start", "BenchmarkStart/ratio"), Unit: "tools-list/empty"},
	{Title: "`talon tools list`, the command alone in process", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkToolsListInProcess")},
	{Title: "binary size, minimal selection", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/minimal"), Unit: "bytes"},
	{Title: "binary size, mcp added to minimal", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/minimal+mcp"), Unit: "delta-bytes"},
	{Title: "binary size, plugins-wasm added to minimal", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/minimal+plugins-wasm"), Unit: "delta-bytes"},
	{Title: "binary size, plugins-process added to minimal", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/minimal+plugins-process"), Unit: "delta-bytes"},
	{Title: "binary size, default selection", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/default"), Unit: "bytes"},
	{Title: "binary size, tools-external added to default", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/default+tools-external"), Unit: "delta-bytes"},
	{Title: "binary size, tools-saas added to default", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/default+tools-saas"), Unit: "delta-bytes"},
	{Title: "binary size, tools-coding-cli added to default", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/default+tools-coding-cli"), Unit: "delta-bytes"},
	{Title: "binary size, dist selection", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkBinarySize/dist"), Unit: "bytes"},

	// Many plugins installed: processes taking turns with 0, 10 and 50 WASM
	// plugins (bench/start BenchmarkPlugins), after the first start that
	// describes them.
	{Title: "`talon tools list` with 50 WASM plugins against none, interleaved", Kind: benchReported,
		Num: bref("bench/start", "BenchmarkPlugins/ratio"), Unit: "tools-list-50/0", Max: 1.2, Source: srcIssue19},
	{Title: "`talon serve --stdio` ready with 50 WASM plugins against none, interleaved", Kind: benchReported,
		Num: bref("bench/start", "BenchmarkPlugins/ratio"), Unit: "serve-ready-50/0", Max: 1.2, Source: srcIssue19},
	{Title: "`talon tools list` with 10 WASM plugins against none, interleaved", Kind: benchReported,
		Num: bref("bench/start", "BenchmarkPlugins/ratio"), Unit: "tools-list-10/0"},
	{Title: "`talon serve --stdio` resident set with 50 WASM plugins, ready", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkPlugins/serve-ready/n=50"), Unit: "rss-bytes", Max: 60 << 20, Source: srcIssue19},
	{Title: "`talon serve --stdio` resident set with no plugins, ready", Kind: benchAbsolute,
		Num: bref("bench/start", "BenchmarkPlugins/serve-ready/n=0"), Unit: "rss-bytes"},
	{Title: "first call of a WASM plugin listed from the describe cache, beyond its compile from the cache", Kind: benchAbsolute,
		Num: bref("plugins/wasm", "BenchmarkWASMFirstCall"), Unit: "overhead-ns/op", Max: 5 * benchMsec, Source: srcIssue19},

	// Catalog and dispatch.
	{Title: "`talon tools list` against an empty Go binary, one after the other", Kind: benchRatio,
		Num: bref("cmd/talon", "BenchmarkToolsListProcess/talon-tools-list"), Base: bref("cmd/talon", "BenchmarkToolsListProcess/baseline-empty-go-binary")},
	{Title: "dispatch overhead, no-op tool (runtime − direct)", Kind: benchOverhead,
		Num: bref("runtime", "BenchmarkDispatch/runtime"), Base: bref("runtime", "BenchmarkDispatch/direct"), Max: 20 * benchUsec, Source: srcBudget},
	{Title: "shell command assessment, typical line", Kind: benchAbsolute,
		Num: bref("risk/shellparse", "BenchmarkAnalyze"), Max: 20 * benchUsec, Source: srcBudget},
	{Title: "shell command assessment against a bare parse, interleaved", Kind: benchReported,
		Num: bref("risk/shellparse", "BenchmarkAnalyzeAgainstParse"), Unit: "analyze/parse", Max: 2, Source: srcBudget},
	{Title: "shell command assessment against a bare parse, one after the other", Kind: benchRatio,
		Num: bref("risk/shellparse", "BenchmarkAnalyze"), Base: bref("risk/shellparse", "BenchmarkParseOnly")},

	// WASM plugins.
	{Title: "WASM tool call, warm pool, deadline enforced", CPU: true, Kind: benchRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMCall/talon"), Base: bref("plugins/wasm", "BenchmarkWASMCall/raw"), Max: 1.2, Source: srcBudget},
	{Title: "WASM tool call, warm pool, enforce_deadline = false", CPU: true, Kind: benchRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMCallNoDeadline/talon"), Base: bref("plugins/wasm", "BenchmarkWASMCallNoDeadline/raw"), Max: 1.2, Source: srcIssue7},
	{Title: "price of close-on-context-done, raw call, Go guest", CPU: true, Kind: benchRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMDeadline/on"), Base: bref("plugins/wasm", "BenchmarkWASMDeadline/off")},
	{Title: "price of close-on-context-done, raw call, WAT guest", CPU: true, Kind: benchRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMDeadlineWAT/on"), Base: bref("plugins/wasm", "BenchmarkWASMDeadlineWAT/off")},
	{Title: "WASM overhead against Extism's, with a deadline", CPU: true, Kind: benchOverheadRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMCall/talon"), Base: bref("plugins/wasm", "BenchmarkWASMCall/raw"),
		Num2: bref("bench/extism", "BenchmarkExtismCallTimeout/extism"), Base2: bref("bench/extism", "BenchmarkExtismCallTimeout/raw"),
		Max: 1.0 / 3, Source: srcBudget},
	{Title: "WASM overhead against Extism's, no deadline", CPU: true, Kind: benchOverheadRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMCallNoDeadline/talon"), Base: bref("plugins/wasm", "BenchmarkWASMCallNoDeadline/raw"),
		Num2: bref("bench/extism", "BenchmarkExtismCall/extism"), Base2: bref("bench/extism", "BenchmarkExtismCall/raw"),
		Max: 1.0 / 3, Source: srcIssue7},
	{Title: "Extism call against raw wazero, with a timeout", CPU: true, Kind: benchRatio,
		Num: bref("bench/extism", "BenchmarkExtismCallTimeout/extism"), Base: bref("bench/extism", "BenchmarkExtismCallTimeout/raw")},
	{Title: "Extism call against raw wazero, no timeout", CPU: true, Kind: benchRatio,
		Num: bref("bench/extism", "BenchmarkExtismCall/extism"), Base: bref("bench/extism", "BenchmarkExtismCall/raw")},
	{Title: "WASM plugin cold load from the compile cache", Kind: benchAbsolute,
		Num: bref("plugins/wasm", "BenchmarkWASMColdLoad/cached"), Max: 50 * benchMsec, Source: srcBudget},
	{Title: "WASM plugin load, empty compile cache against a warm one", Kind: benchRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMColdLoad/compile"), Base: bref("plugins/wasm", "BenchmarkWASMColdLoad/cached")},
	{Title: "Extism-kind tool call against a bare extism/go-sdk call", CPU: true, Kind: benchRatio,
		Num: bref("plugins/extism", "BenchmarkExtismToolCall/talon"), Base: bref("plugins/extism", "BenchmarkExtismToolCall/bare"), Max: 1.1, Source: srcBudget},
	{Title: "Extism plugin cold load from the compile cache", Kind: benchAbsolute,
		Num: bref("plugins/extism", "BenchmarkExtismColdLoad/talon")},
	{Title: "Extism plugin cold load against bare extism/go-sdk", CPU: true, Kind: benchRatio,
		Num: bref("plugins/extism", "BenchmarkExtismColdLoad/talon"), Base: bref("plugins/extism", "BenchmarkExtismColdLoad/bare")},
	{Title: "WASM instance, new against one from the warm pool", Kind: benchRatio,
		Num: bref("plugins/wasm", "BenchmarkWASMAcquire/new"), Base: bref("plugins/wasm", "BenchmarkWASMAcquire/warm")},
	{Title: "guest memory per warm instance, Go plugin", Kind: benchAbsolute,
		Num: bref("plugins/wasm", "BenchmarkWASMInstanceMemory/go"), Unit: "guest-bytes/instance"},
	{Title: "Go heap per warm instance, Go plugin", Kind: benchAbsolute,
		Num: bref("plugins/wasm", "BenchmarkWASMInstanceMemory/go"), Unit: "heap-bytes/instance"},
	{Title: "plugin tool through the loader's wrapper against direct", Kind: benchRatio,
		Num: bref("plugins", "BenchmarkExecute/talon"), Base: bref("plugins", "BenchmarkExecute/raw")},
	{Title: "plugin manifest parse and validation against a plain TOML decode", Kind: benchRatio,
		Num: bref("plugins/manifest", "BenchmarkParse/talon"), Base: bref("plugins/manifest", "BenchmarkParse/raw")},
	{Title: "plugin manifest signature check against a bare Ed25519 verify", Kind: benchRatio,
		Num: bref("plugins/manifest", "BenchmarkVerify/talon"), Base: bref("plugins/manifest", "BenchmarkVerify/raw")},

	// The shell in the background and on a terminal.
	{Title: "shell line on a terminal (pty) against the same line without one, interleaved", Kind: benchReported,
		Num: bref("adapters/shell", "BenchmarkPTY/ratio"), Unit: "pty/plain", Max: 1.3, Source: srcIssue17},
	{Title: "shell line with yield_ms that ends in time against the foreground, interleaved", Kind: benchReported,
		Num: bref("adapters/shell", "BenchmarkYield/ratio"), Unit: "yield/foreground"},
	{Title: "one poll of a yielded line with nothing new", Kind: benchAbsolute,
		Num: bref("adapters/shell", "BenchmarkYield/poll")},

	// Subprocess plugins.
	{Title: "subprocess plugin call against a bare go-plugin gRPC round trip", Kind: benchRatio,
		Num: bref("plugins/process", "BenchmarkCall/talon"), Base: bref("plugins/process", "BenchmarkCall/bare"), Max: 1.2, Source: srcBudget},
	{Title: "subprocess plugin start, AutoMTLS against plain", Kind: benchRatio,
		Num: bref("plugins/process", "BenchmarkStart/automtls"), Base: bref("plugins/process", "BenchmarkStart/plain")},

	// Command tools and the sandbox.
	{Title: "command tool call against bare fork/exec", Kind: benchRatio,
		Num: bref("commandtool", "BenchmarkCall/tool"), Base: bref("commandtool", "BenchmarkCall/bare"), Max: 1.3, Source: srcBudget},
	{Title: "command tool call against bare fork/exec, interleaved", Kind: benchReported,
		Num: bref("commandtool", "BenchmarkCall/interleaved"), Unit: "tool/bare", Max: 1.3, Source: srcBudget},
	{Title: "coding CLI run through the tool against a bare sandboxed run", Kind: benchRatio,
		Num: bref("adapters/codingcli", "BenchmarkRun/talon"), Base: bref("adapters/codingcli", "BenchmarkRun/raw")},
	{Title: "sandboxed spawn with talon re-executed as the helper against bare fork/exec", Kind: benchRatio,
		Num: bref("sandbox", "BenchmarkSpawn/sandboxed"), Base: bref("sandbox", "BenchmarkSpawn/bare")},
	{Title: "sandboxed spawn with talon-sandbox against bare fork/exec", Kind: benchRatio,
		Num: bref("sandbox", "BenchmarkSpawn/native"), Base: bref("sandbox", "BenchmarkSpawn/bare")},
	{Title: "sandboxed spawn against bubblewrap, interleaved", Kind: benchReported,
		Num: bref("sandbox", "BenchmarkSpawnInterleaved"), Unit: "native/bwrap", Max: 0.5, Source: srcIssue19},
	{Title: "sandboxed spawn with talon re-executed as the helper against bubblewrap, interleaved", Kind: benchReported,
		Num: bref("sandbox", "BenchmarkSpawnInterleaved"), Unit: "gohelper/bwrap"},
	{Title: "sandboxed spawn against bare fork/exec, interleaved", Kind: benchReported,
		Num: bref("sandbox", "BenchmarkSpawnInterleaved"), Unit: "native/bare"},

	// Subagents.
	{Title: "subagent loop per round, besides the model endpoint and the tool", Kind: benchAbsolute,
		Num: bref("agents", "BenchmarkAgentRound"), Unit: "overhead-ns/round", Max: 1 * benchMsec, Source: "issue 18 (subagents)"},
	{Title: "subagent round against the model endpoint's own latency", Kind: benchReported,
		Num: bref("agents", "BenchmarkAgentRound"), Unit: "round/endpoint"},

	// Receipts.
	{Title: "durable receipts with group commit, 64 callers", Kind: benchAbsolute,
		Num: bref("receipts", "BenchmarkDurable/mode=store/callers=64"), Unit: "receipts/s", Min: 10000, Source: srcBudget},
	{Title: "time per durable receipt against raw append+fsync, 1 caller", Kind: benchRatio,
		Num: bref("receipts", "BenchmarkDurable/mode=store/callers=1"), Base: bref("receipts", "BenchmarkDurable/mode=rawfsync/callers=1")},
	{Title: "time per durable receipt against raw append+fsync, 8 callers", Kind: benchRatio,
		Num: bref("receipts", "BenchmarkDurable/mode=store/callers=8"), Base: bref("receipts", "BenchmarkDurable/mode=rawfsync/callers=8")},
	{Title: "time per durable receipt against raw append+fsync, 64 callers", Kind: benchRatio,
		Num: bref("receipts", "BenchmarkDurable/mode=store/callers=64"), Base: bref("receipts", "BenchmarkDurable/mode=rawfsync/callers=64")},
	{Title: "durable receipts, 16 callers in each of 4 processes", Kind: benchAbsolute,
		Num: bref("receipts", "BenchmarkDurable/mode=store/procs=4/callers=16"), Unit: "receipts/s", Min: 10000, Source: srcIssue16},
	{Title: "time per durable receipt against raw append+fsync, 16 callers in each of 4 processes", Kind: benchRatio,
		Num: bref("receipts", "BenchmarkDurable/mode=store/procs=4/callers=16"), Base: bref("receipts", "BenchmarkDurable/mode=rawfsync/procs=4/callers=16")},

	// Containment: the file tools through os.Root, git's hardening,
	// secrets redacted from what tools return.
	{Title: "file read through the workspace root against the path checks, interleaved, CPU", Kind: benchReported,
		Num: bref("workspace", "BenchmarkInterleaved/read"), Unit: "root/resolve-cpu", Max: 1.2, Source: srcIssue15},
	{Title: "file write through the workspace root against the path checks, interleaved, CPU", Kind: benchReported,
		Num: bref("workspace", "BenchmarkInterleaved/write"), Unit: "root/resolve-cpu", Max: 1.2, Source: srcIssue15},
	{Title: "walk and read of 200 files through the workspace root against the path checks, interleaved, CPU", Kind: benchReported,
		Num: bref("workspace", "BenchmarkInterleaved/walk"), Unit: "root/resolve-cpu", Max: 1.2, Source: srcIssue15},
	{Title: "git status through the spawner's hardening against a plain start", Kind: benchRatio,
		Num: bref("sandbox", "BenchmarkGitSpawn/spawner"), Base: bref("sandbox", "BenchmarkGitSpawn/plain")},
	{Title: "secret redaction of a tool's output against a literal replacer", Kind: benchRatio,
		Num: bref("netguard", "BenchmarkRedactor/redactor"), Base: bref("netguard", "BenchmarkRedactor/literal-replacer")},

	// The console.
	{Title: "approval row in an open console after the call starts waiting, SSE", Kind: benchAbsolute,
		Num: bref("console", "BenchmarkApprovalRow/console"), Unit: "ms/row", Max: 200, Source: srcIssue21},
	{Title: "approval row in the console's page in headless Chromium after the call starts waiting", Kind: benchAbsolute,
		Num: bref("console", "BenchmarkApprovalRowBrowser"), Unit: "ms/row", Max: 200, Source: srcIssue21},
	{Title: "console Receipts page, first page of 100,000 receipts", Kind: benchAbsolute,
		Num: bref("console", "BenchmarkReceiptsPage/console-first-page"), Max: 100 * benchMsec, Source: srcIssue21},

	// The fleet: receipts shipped to PostgreSQL (a throwaway cluster on
	// this machine that flushes its WAL at every commit), spans and
	// metrics over OTLP.
	{Title: "fleet shipping from 4 processes into PostgreSQL (COPY)", Kind: benchAbsolute,
		Num: bref("fleet", "BenchmarkShip"), Unit: "receipts/s", Min: 50000, Source: srcBudget},
	{Title: "fleet shipping lag at 10,000 receipts/s from 4 hosts, p99", Kind: benchAbsolute,
		Num: bref("fleet", "BenchmarkShipLag"), Unit: "p99-ms", Max: 1000, Source: srcBudget},
	{Title: "fleet shipping lag at 10,000 receipts/s from 4 hosts, p50", Kind: benchAbsolute,
		Num: bref("fleet", "BenchmarkShipLag"), Unit: "p50-ms"},
	{Title: "call with the fleet and telemetry on against off, durable receipts, one caller, wall, interleaved", Kind: benchReported,
		Num: bref("fleet", "BenchmarkCallOverhead/receipts/c=1"), Unit: "on/off", Max: 1.05, Source: srcBudget},
	{Title: "call with the fleet and telemetry on against off, durable receipts, 8 callers, wall, interleaved", Kind: benchReported,
		Num: bref("fleet", "BenchmarkCallOverhead/receipts/c=8"), Unit: "on/off"},
	{Title: "call with the fleet and telemetry on against off, durable receipts, one caller, talon's CPU", Kind: benchReported,
		Num: bref("fleet", "BenchmarkCallOverhead/receipts/c=1"), Unit: "cpu-on/off"},
	{Title: "call with the fleet alone on against off, durable receipts, one caller, talon's CPU", Kind: benchReported,
		Num: bref("fleet", "BenchmarkCallOverhead/receipts/fleet-only/c=1"), Unit: "cpu-on/off"},
	{Title: "call with telemetry alone on against off, durable receipts, one caller, talon's CPU", Kind: benchReported,
		Num: bref("fleet", "BenchmarkCallOverhead/receipts/telemetry-only/c=1"), Unit: "cpu-on/off"},
	{Title: "CPU of a call with telemetry exporting its span, receipts off", Kind: benchAbsolute,
		Num: bref("fleet", "BenchmarkCallOverhead/noreceipts/c=1"), Unit: "on-cpu-ns/call"},
	{Title: "CPU of the same call without telemetry, receipts off", Kind: benchAbsolute,
		Num: bref("fleet", "BenchmarkCallOverhead/noreceipts/c=1"), Unit: "off-cpu-ns/call"},
	{Title: "approval answered from another host, answer to the waiting call, p50", Kind: benchAbsolute,
		Num: bref("fleet", "BenchmarkApprovalRoundTrip"), Unit: "p50-ms", Max: 100, Source: srcIssue22},

	// MCP serving: talon serve (durable receipts, the default) against
	// mcp-go's and the go-sdk's minimal servers, one load generator, the
	// servers taking turns in every round (bench/mcp); ratios round by
	// round.
	{Title: "MCP tools/call over HTTP, c=1, calls/s against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=1/ratio"), Unit: "talon/mcpgo", Min: 1, Source: srcBudget},
	{Title: "MCP tools/call over HTTP, c=8, calls/s against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=8/ratio"), Unit: "talon/mcpgo", Min: 1, Source: srcBudget},
	{Title: "MCP tools/call over HTTP, c=64, calls/s against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "talon/mcpgo", Min: 1, Source: srcBudget},
	{Title: "MCP tools/call over stdio, c=1, calls/s against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/stdio/c=1/ratio"), Unit: "talon/mcpgo", Min: 1, Source: srcBudget},
	{Title: "MCP tools/call over stdio, c=8, calls/s against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/stdio/c=8/ratio"), Unit: "talon/mcpgo"},
	{Title: "MCP server CPU per call over HTTP, c=1, against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=1/ratio"), Unit: "cpu-talon/mcpgo", Max: 1.2, Source: srcBudget},
	{Title: "MCP server CPU per call over HTTP, c=8, against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=8/ratio"), Unit: "cpu-talon/mcpgo", Max: 1.2, Source: srcBudget},
	{Title: "MCP server CPU per call over HTTP, c=64, against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "cpu-talon/mcpgo", Max: 1.2, Source: srcBudget},
	{Title: "MCP server CPU per call over stdio, c=1, against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/stdio/c=1/ratio"), Unit: "cpu-talon/mcpgo", Max: 1.2, Source: srcBudget},
	{Title: "MCP server peak RSS after HTTP c=64, against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "rss-talon/mcpgo", Max: 1.2, Source: srcBudget},
	{Title: "MCP calls refused as busy over HTTP at c=64, default queue", Kind: benchAbsolute,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/talon"), Unit: "refused/call-max", Max: 1e-4, Source: srcBudget},
	{Title: "MCP tools/call over HTTP, c=64, calls/s against the go-sdk's minimal server", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "talon/gosdk"},
	{Title: "MCP over HTTP, c=1, receipts on against off: calls/s", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=1/ratio"), Unit: "talon/talon-noreceipts"},
	{Title: "MCP over HTTP, c=64, receipts on against off: calls/s", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=64/ratio"), Unit: "talon/talon-noreceipts"},
	{Title: "MCP over HTTP, c=8, receipts off, calls/s against mcp-go", Kind: benchReported,
		Num: bref("bench/mcp", "BenchmarkMCP/http/c=8/ratio"), Unit: "talon-noreceipts/mcpgo"},
	{Title: "MCP dispatch in process over HTTP, no-op tool, receipts off", Kind: benchAbsolute,
		Num: bref("mcp/server", "BenchmarkHTTPCall/receipts=false")},
	{Title: "MCP round trip over stdio against the SDK's minimal server", Kind: benchReported,
		Num: bref("cli", "BenchmarkServeRoundTrip/stdio"), Unit: "talon/sdk"},
	{Title: "MCP round trip over HTTP against the SDK's minimal server", Kind: benchReported,
		Num: bref("cli", "BenchmarkServeRoundTrip/http"), Unit: "talon/sdk"},
	{Title: "MCP round trip over stdio with durable receipts", Kind: benchReported,
		Num: bref("cli", "BenchmarkServeRoundTrip/stdio/receipts"), Unit: "talon/sdk"},
	{Title: "MCP round trip over HTTP with durable receipts", Kind: benchReported,
		Num: bref("cli", "BenchmarkServeRoundTrip/http/receipts"), Unit: "talon/sdk"},

	// Built-in tools.
	{Title: "web_fetch of 1 MB, markdown against raw", Kind: benchRatio,
		Num: bref("adapters/web", "BenchmarkWebFetch/markdown"), Base: bref("adapters/web", "BenchmarkWebFetch/raw")},
	{Title: "web_search against a bare GET of the same URL", Kind: benchRatio,
		Num: bref("adapters/search", "BenchmarkSearch/talon"), Base: bref("adapters/search", "BenchmarkSearch/raw")},
	{Title: "memory_recall over 10,000 memories, common keywords", CPU: true, Kind: benchAbsolute,
		Num: bref("adapters/memory", "BenchmarkRecall/keyword_common"), Max: 5 * benchMsec, Source: "adapters/memory/bench_test.go"},
}

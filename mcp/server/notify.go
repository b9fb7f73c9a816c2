package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

// Logging and progress: what talon tells a client outside a call's result.
const (
	methodSetLevel = "logging/setLevel"
	noteMessage    = "notifications/message"
	noteProgress   = "notifications/progress"
)

// logLevels are MCP's logging levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// setLevel handles logging/setLevel: the session gets log notifications
// of that level and above (every level until a client sets one).
func (ss *session) setLevel(params json.RawMessage) *rpcError {
	var p struct {
		Level string `json:"level"`
	}
	if json.Unmarshal(params, &p) != nil || !slices.Contains(logLevels, p.Level) {
		return rpcErrorf(codeInvalidParams, "logging/setLevel needs params with level, one of debug, info, notice, warning, error, critical, alert or emergency")
	}
	ss.mu.Lock()
	ss.logLevel = p.Level
	ss.mu.Unlock()
	return nil
}

// wants reports whether the session takes log notifications of level.
func (ss *session) wants(level string) bool {
	ss.mu.Lock()
	min := ss.logLevel
	ss.mu.Unlock()
	return min == "" || slices.Index(logLevels, level) >= slices.Index(logLevels, min)
}

// notifier delivers a tool's notices to the session as log
// notifications, outside any request: a background process that ended
// after the call that started it returned. A session that ended, or
// that cannot be reached outside a request, misses them; what they say
// can still be asked for (the process tool's list and poll).
func (ss *session) notifier() tool.Notifier {
	return func(n tool.Notice) {
		if ss.ctx.Err() != nil || !ss.ready() || ss.push == nil || !ss.wants(n.Level) {
			return
		}
		ss.push(appendRequest(nil, "", noteMessage, noticeParams(n)))
	}
}

// noticeParams are the params of notifications/message for n: its data
// carries the sentence as message, beside the notice's own fields.
func noticeParams(n tool.Notice) []byte {
	level := n.Level
	if !slices.Contains(logLevels, level) {
		level = "info"
	}
	data := make(map[string]any, len(n.Data)+1)
	for k, v := range n.Data {
		data[k] = v
	}
	data["message"] = n.Text
	logger := n.Logger
	if logger == "" {
		logger = "talon"
	}
	b, err := json.Marshal(map[string]any{"level": level, "logger": logger, "data": data})
	if err != nil {
		b, _ = json.Marshal(map[string]any{"level": level, "logger": logger, "data": map[string]any{"message": n.Text}})
	}
	return b
}

// waiting starts the running notice of a call waiting on approval: once,
// after the call's noticeAfter, the client hears that the call waits for
// a person. The returned func stops it.
func (c *caller) waiting(req approval.Request) (stop func()) {
	if c == nil || c.noticeAfter <= 0 || c.out == nil {
		return func() {}
	}
	t := time.AfterFunc(c.noticeAfter, func() { c.runningNotice(req) })
	return func() { t.Stop() }
}

// runningNotice tells the client the call still waits for approval: as
// progress of the request when it asked for progress (a progressToken),
// otherwise as a log notification, both on the request's own stream.
func (c *caller) runningNotice(req approval.Request) {
	text := fmt.Sprintf("%s is still waiting for a person's approval (after %s); it runs once someone approves it", req.Tool, c.noticeAfter)
	if c.session == nil || c.session.ctx.Err() != nil {
		return
	}
	if len(c.progressToken) > 0 {
		params := append([]byte(`{"progressToken":`), c.progressToken...)
		params = append(params, `,"progress":0,"message":`...)
		params = append(appendString(params, text), '}')
		_ = c.out.send(appendRequest(nil, "", noteProgress, params))
		return
	}
	if !c.session.wants("info") {
		return
	}
	_ = c.out.send(appendRequest(nil, "", noteMessage, noticeParams(tool.Notice{
		Level: tool.NoticeInfo, Logger: "talon.approvals", Text: text,
		Data: map[string]any{"tool": req.Tool, "waiting_ms": c.noticeAfter.Milliseconds()},
	})))
}

// MetaPending carries the approval id of a call that returned without
// waiting for its approval ([approvals] wait = false); nothing ran yet.
const MetaPending = "talon/pending"

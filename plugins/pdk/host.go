package pdk

import (
	"encoding/json"
	"fmt"
)

// Level is a log level.
type Level int32

// The log levels.
const (
	LevelDebug Level = iota
	LevelInfo
	LevelWarn
	LevelError
)

// Log sends a message to talon's log, attributed to the plugin.
func Log(level Level, msg string) { hostLog(level, msg) }

// Logf formats and logs at info level.
func Logf(format string, a ...any) { hostLog(LevelInfo, fmt.Sprintf(format, a...)) }

// Config decodes the value of a config key the operator granted into v.
// The value has the type the operator wrote in TOML (a string, a number, a
// boolean, an array or a table). A key the manifest lists in
// permissions.config_read that the operator did not set is [ErrNotSet];
// any other key is refused by the host ([ErrHost]: not granted).
func Config(key string, v any) error {
	raw, err := request("config_get", []byte(key))
	if err != nil {
		return err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("%w: config key %q", ErrNotSet, key)
	}
	return json.Unmarshal(raw, v)
}

// ConfigString returns a granted string config value.
func ConfigString(key string) (string, error) {
	var s string
	err := Config(key, &s)
	return s, err
}

// Secret returns a granted secret. Secrets are available only while a
// tool call runs, never in init.
func Secret(name string) (string, error) {
	raw, err := request("secret_get", []byte(name))
	if err != nil {
		return "", err
	}
	var s string
	err = json.Unmarshal(raw, &s)
	return s, err
}

// Request is an HTTP request for [HTTP].
type Request struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// Response is an HTTP response. Headers with several values are joined
// with ", ". The body stops at the plugin's output cap (Truncated).
type Response struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"`
	Body      string            `json:"body"`
	Truncated bool              `json:"truncated"`
}

// HTTP sends a request through the host, to one of the plugin's
// allowed_hosts only; private and loopback addresses are refused.
func HTTP(req Request) (*Response, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	raw, err := request("http_request", b)
	if err != nil {
		return nil, err
	}
	var resp Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("http_request: %w", err)
	}
	return &resp, nil
}

// Get is HTTP with method GET.
func Get(url string) (*Response, error) { return HTTP(Request{Method: "GET", URL: url}) }

type fsRequest struct {
	Path string `json:"path"`
	Data []byte `json:"data,omitempty"`
}

// ReadFile reads a file under a directory granted by fs_read. A relative
// path is taken from the workspace.
func ReadFile(path string) ([]byte, error) {
	b, _ := json.Marshal(fsRequest{Path: path})
	raw, err := request("fs_read", b)
	if err != nil {
		return nil, err
	}
	var v struct {
		Data []byte `json:"data"`
	}
	err = json.Unmarshal(raw, &v)
	return v.Data, err
}

// WriteFile writes a file under a directory granted by fs_write, creating
// parent directories.
func WriteFile(path string, data []byte) error {
	b, _ := json.Marshal(fsRequest{Path: path, Data: data})
	_, err := request("fs_write", b)
	return err
}

// DirEntry is one entry of [ReadDir].
type DirEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir"`
	Size int64  `json:"size"`
}

// ReadDir lists a directory under a granted fs_read or fs_write
// directory, sorted by name.
func ReadDir(path string) ([]DirEntry, error) {
	b, _ := json.Marshal(fsRequest{Path: path})
	raw, err := request("fs_list", b)
	if err != nil {
		return nil, err
	}
	var v struct {
		Entries []DirEntry `json:"entries"`
	}
	err = json.Unmarshal(raw, &v)
	return v.Entries, err
}

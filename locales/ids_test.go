package locales

import "testing"

func TestIDs(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "tool", got: ToolID("file_read"), want: "tool-file-read"},
		{name: "tool with hyphen and digits", got: ToolID("web-fetch2"), want: "tool-web-fetch2"},
		{name: "mcp tool", got: ToolID("github__create_issue"), want: "tool-github--create-issue"},
		{name: "odd characters", got: ToolID("my.tool é"), want: "tool-my-tool--"},
		{name: "param", got: ParamID("file_read", "offset"), want: "tool-file-read-param-offset"},
		{name: "param with underscore", got: ParamID("file_edit", "old_string"), want: "tool-file-edit-param-old-string"},
		{name: "error", got: ErrorID("file_read", "binary"), want: "tool-file-read-error-binary"},
		{name: "error slug with underscore", got: ErrorID("shell", "time_out"), want: "tool-shell-error-time-out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
			if !ValidID(tt.got) {
				t.Errorf("%q is not a valid message id", tt.got)
			}
		})
	}
}

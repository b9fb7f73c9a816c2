package spelling

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"file_read", "file_write", "glob_search", "calculator", "shell"}
	tests := []struct{ in, want string }{
		{"file_raed", "file_read"},
		{"calculater", "calculator"},
		{"shel", "shell"},
		{"glob", "glob_search"},
		{"FILE-READ", "file_read"},
		{"zzzzzzzz", ""},
		{"file_read", "file_read"},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

//go:build !linux

package sandbox

import "os"

func removeAfter(*os.Process, string) {}

func removeTemp(tmp string) {
	if tmp != "" {
		_ = os.RemoveAll(tmp)
	}
}

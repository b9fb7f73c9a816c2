//go:build !linux && !darwin

package sandbox

// gitCacheable is false where a file's change time is not read: every git
// spawn reads the config again.
const gitCacheable = false

func statID(string) fileID { return fileID{} }

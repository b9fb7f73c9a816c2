package runtime

import (
	"fmt"
	"os"
	"path/filepath"
)

var (
	osGetwd  = os.Getwd
	osGetenv = os.Getenv
)

// resolveDir makes dir absolute and symlink-free, and checks it is a directory.
func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s does not exist: create it or point workspace elsewhere", abs)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", real)
	}
	return real, nil
}

//go:build !linux

package sandbox

func chooseNative(Policy, string, spec) (string, string) {
	return "", NativeName + " runs only on Linux"
}

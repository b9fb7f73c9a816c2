//go:build !linux

package workspacetest

import (
	"errors"
	"os/exec"
)

const supported = false

func exchange(string, string) error { return errors.New("not supported") }

func setDeathSignal(*exec.Cmd) {}

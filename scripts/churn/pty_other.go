//go:build !linux

package main

import (
	"errors"
	"os"
	"os/exec"
)

// startInPTY is Linux only here.
func startInPTY(*exec.Cmd, uint16, uint16) (*os.File, error) {
	return nil, errors.New("PTY clients: Linux only in this harness")
}

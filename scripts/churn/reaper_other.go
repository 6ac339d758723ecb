//go:build !linux

package main

import "errors"

func becomeSubreaper() error { return errors.New("child subreaper: Linux only") }

func diedHow(int) string { return "ended; exit status not read on this system" }

func reapChild(int) {}

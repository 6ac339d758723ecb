package jobs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/shirou/gopsutil/v3/process"
	"github.com/tmux-mcp/tmux-mcp/proc"
	"golang.org/x/sys/unix"
)

// A job's processes are the processes below the pane's process
// (pane_pid: the shell, or a sh -c that started it) that were not there
// just before the job was typed (proc.Descendants reads them).

// PaneProcesses returns the PIDs of the processes below pane (a pane's
// process), sorted: what [jobrecord.Record.Before] holds, read just
// before a job is typed.
func PaneProcesses(ctx context.Context, pane int) ([]int, error) {
	procs, _, err := proc.Descendants(ctx, pane)
	slices.Sort(procs)
	return procs, err
}

// jobProcesses returns the processes of a job in a pane: those below the
// pane's process that are not in before. alive reports whether the pane's
// process exists.
func jobProcesses(ctx context.Context, pane int, before []int) (procs []int, alive bool, err error) {
	if pane <= 0 {
		return nil, false, errors.New("jobs: no pane process")
	}
	all, alive, err := proc.Descendants(ctx, pane)
	if err != nil || !alive {
		return nil, alive, err
	}
	for _, pid := range all {
		if !slices.Contains(before, pid) {
			procs = append(procs, pid)
		}
	}
	return procs, true, nil
}

// processAlive reports whether a process pid runs (exists and is not a
// zombie).
func processAlive(pid int) bool {
	ok, err := process.PidExists(int32(pid))
	if err != nil || !ok {
		return false
	}
	status, err := (&process.Process{Pid: int32(pid)}).Status()
	return err != nil || !slices.Contains(status, process.Zombie)
}

// signalJob sends sig to procs, the processes of a job in the pane whose
// process is pane and whose other processes are before: to each process
// group of the job's own (a shell with job control gives a job one) as a
// group, and one by one to the processes in a group it shares with those
// that are not the job's. No group of the pane's process, of before, or
// of tmux-mcp is ever signalled. It says what it signalled.
func signalJob(procs []int, pane int, before []int, sig syscall.Signal) (string, error) {
	keep := map[int]bool{unix.Getpgrp(): true}
	for _, pid := range append([]int{pane}, before...) {
		if g, err := unix.Getpgid(pid); err == nil {
			keep[g] = true
		}
	}
	groups := map[int]int{} // pgid -> processes
	var singles []int
	for _, pid := range procs {
		if pid == pane || pid == os.Getpid() || slices.Contains(before, pid) {
			continue
		}
		g, err := unix.Getpgid(pid)
		switch {
		case err != nil:
			continue // gone meanwhile
		case g > 1 && !keep[g]:
			groups[g]++
		default:
			singles = append(singles, pid)
		}
	}
	var done []string
	var errs []string
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if err := unix.Kill(-g, sig); err != nil && err != unix.ESRCH {
			errs = append(errs, fmt.Sprintf("process group %d: %v", g, err))
			continue
		}
		done = append(done, fmt.Sprintf("process group %d (%d processes)", g, groups[g]))
	}
	for _, pid := range singles {
		if err := unix.Kill(pid, sig); err != nil && err != unix.ESRCH {
			errs = append(errs, fmt.Sprintf("process %d: %v", pid, err))
			continue
		}
		done = append(done, fmt.Sprintf("process %d", pid))
	}
	if len(errs) > 0 {
		return strings.Join(done, ", "), fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return strings.Join(done, ", "), nil
}

// PaneTree returns the PIDs of the processes below pane (a pane's
// process), each before its own descendants: the order in which a tree
// is read from the pane down.
func PaneTree(ctx context.Context, pane int) ([]int, error) {
	procs, _, err := proc.Descendants(ctx, pane)
	return procs, err
}

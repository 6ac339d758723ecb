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
	"golang.org/x/sys/unix"
)

// A job's processes are the processes below the pane's process
// (pane_pid: the shell, or a sh -c that started it) that were not there
// just before the job was typed. On Linux they are read from the
// children files of procfs, a few reads for a pane's subtree
// (childrenOf); elsewhere, or without those files, from the whole process
// table through gopsutil (procfs on Linux, sysctl on macOS), which costs a
// read of every process.

// descendants returns the processes below pid, and whether pid exists.
func descendants(ctx context.Context, pid int) (procs []int, alive bool, err error) {
	if _, ok, _ := childrenOf(pid); ok {
		var walk func(int) bool
		walk = func(p int) bool {
			kids, ok, err := childrenOf(p)
			if err != nil || !ok {
				return p != pid // gone meanwhile: only the root matters
			}
			for _, k := range kids {
				procs = append(procs, k)
				walk(k)
			}
			return true
		}
		alive = walk(pid)
		return procs, alive, nil
	}
	tree, alive, err := processTree(ctx, pid)
	if err != nil || !alive {
		return nil, alive, err
	}
	return below(tree, pid), true, nil
}

// processTree returns the children of every process, and whether pid is
// among the processes.
func processTree(ctx context.Context, pid int) (children map[int][]int, found bool, err error) {
	pids, err := process.PidsWithContext(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("jobs: list processes: %w", err)
	}
	children = map[int][]int{}
	for _, p := range pids {
		if int(p) == pid {
			found = true
		}
		ppid, err := (&process.Process{Pid: p}).PpidWithContext(ctx)
		if err != nil {
			continue // gone meanwhile
		}
		children[int(ppid)] = append(children[int(ppid)], int(p))
	}
	return children, found, nil
}

// below returns the descendants of pid in tree.
func below(tree map[int][]int, pid int) []int {
	var out []int
	for _, c := range tree[pid] {
		out = append(out, c)
		out = append(out, below(tree, c)...)
	}
	return out
}

// PaneProcesses returns the PIDs of the processes below pane (a pane's
// process), sorted: what [jobrecord.Record.Before] holds, read just
// before a job is typed.
func PaneProcesses(ctx context.Context, pane int) ([]int, error) {
	procs, _, err := descendants(ctx, pane)
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
	all, alive, err := descendants(ctx, pane)
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
	procs, _, err := descendants(ctx, pane)
	return procs, err
}

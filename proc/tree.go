package proc

import (
	"context"
	"fmt"

	"github.com/shirou/gopsutil/v3/process"
)

// The processes below a process (a pane's shell, an agent CLI) are read,
// on Linux, from the children files of procfs, a few reads for a pane's
// subtree (childrenOf); elsewhere, or without those files, from the whole
// process table through gopsutil (procfs on Linux, sysctl on macOS), which
// costs a read of every process.

// Descendants returns the processes below pid, each before its own
// descendants, and whether pid exists.
func Descendants(ctx context.Context, pid int) (procs []int, alive bool, err error) {
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
		return nil, false, fmt.Errorf("proc: list processes: %w", err)
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

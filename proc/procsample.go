package proc

import (
	"encoding/binary"
	"fmt"
)

// What gopsutil does not read alike on Linux and macOS (open fds, the fd
// limit, whether a process runs now) goes through sampleFDs and runnable,
// side by side in procsample_linux.go (procfs, through gopsutil) and
// procsample_darwin.go (proc_info(2), which gopsutil v3 does not use for
// these). The macOS decoding is here, without build tags, so that it is
// tested on Linux.

// Sizes of the proc_info(2) records read on macOS (sys/proc_info.h).
const (
	darwinFDInfoSize   = 8  // struct proc_fdinfo: int32 fd, uint32 type
	darwinTaskInfoSize = 96 // struct proc_taskinfo
)

// darwinTaskInfo is the part of a macOS struct proc_taskinfo used here.
type darwinTaskInfo struct {
	Threads int // pti_threadnum
	Running int // pti_numrunning: threads running or runnable now
}

// parseDarwinTaskInfo decodes a struct proc_taskinfo as PROC_PIDTASKINFO
// returns it (little-endian on both arm64 and amd64): six uint64 fields,
// then twelve int32, of which pti_threadnum is the tenth and
// pti_numrunning the eleventh.
func parseDarwinTaskInfo(b []byte) (darwinTaskInfo, error) {
	if len(b) < darwinTaskInfoSize {
		return darwinTaskInfo{}, fmt.Errorf("proc_taskinfo: %d bytes, want %d", len(b), darwinTaskInfoSize)
	}
	field := func(i int) int { return int(int32(binary.LittleEndian.Uint32(b[6*8+4*i:]))) }
	return darwinTaskInfo{Threads: field(9), Running: field(10)}, nil
}

// darwinFDCount turns the byte count PROC_PIDLISTFDS filled in into the
// number of open fds.
func darwinFDCount(n int) int { return n / darwinFDInfoSize }

package diagnostics

import (
	"syscall"
	"testing"
	"time"
)

func TestParseKernelRecord(t *testing.T) {
	boot := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		rec    string
		pid    int
		signal syscall.Signal
		at     time.Duration
	}{
		{"6,1234,8406601847,-;tmux: server[27588]: segfault at 74 ip 00007f61d97d1ad8 sp 00007ffe0b3d8f58 error 4 in libc.so.6[167ad8,7f61d9690000+156000]\n",
			27588, syscall.SIGSEGV, 8406601847 * time.Microsecond},
		{"3,99,5000000,-;Out of memory: Killed process 4242 (tmux: server) total-vm:812000kB, anon-rss:790000kB\n SUBSYSTEM=memory",
			4242, syscall.SIGKILL, 5 * time.Second},
		{"3,100,6000000,-;Memory cgroup out of memory: Killed process 77 (tmux: server) total-vm:1kB", 77, syscall.SIGKILL, 6 * time.Second},
		{"6,101,7000000,-;traps: tmux: server[88] trap invalid opcode ip:55 sp:7ff error:0 in tmux[55+1]", 88, syscall.SIGILL, 7 * time.Second},
		{"6,102,8000000,-;bash[99]: segfault at 0 ip 0 sp 0 error 4", 0, 0, 0},
		{"6,103,9000000,-;Out of memory: Killed process 5 (java) total-vm:1kB", 0, 0, 0},
		{"garbage", 0, 0, 0},
	}
	for _, tt := range tests {
		r, ok := parseKernelRecord(tt.rec, boot)
		if ok != (tt.pid != 0) || r.PID != tt.pid || r.Signal != tt.signal || ok && !r.Time.Equal(boot.Add(tt.at)) {
			t.Errorf("parseKernelRecord(%q) = %+v, %v; want pid %d, %v at %v", tt.rec, r, ok, tt.pid, tt.signal, tt.at)
		}
	}
	recs := []kernelRecord{{PID: 7, Time: boot.Add(time.Hour), Signal: syscall.SIGKILL}}
	if _, ok := kernelRecordOf(recs, 7, boot.Add(2*time.Hour)); ok {
		t.Error("a record from before the process started matched (PID reused)")
	}
	if _, ok := kernelRecordOf(recs, 7, boot); !ok {
		t.Error("the process's own record did not match")
	}
}

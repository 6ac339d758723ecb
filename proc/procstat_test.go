package proc

import (
	"testing"
)

func TestDarwinProcStat(t *testing.T) {
	tests := []struct {
		name                string
		pstat               int8
		startSec, startUsec int64
		want                ProcStat
	}{
		{"live (SRUN): state unknown", darwinSRUN, 1761998610, 747123, ProcStat{StartTime: 1761998610747123}},
		{"being created (SIDL)", darwinSIDL, 1, 0, ProcStat{StartTime: 1_000_000}},
		{"sleeping (SSLEEP)", darwinSSLEEP, 1761998610, 1, ProcStat{State: 'S', StartTime: 1761998610000001}},
		{"stopped (SSTOP)", darwinSSTOP, 1761998610, 0, ProcStat{State: 'T', StartTime: 1761998610000000}},
		{"zombie (SZOMB)", darwinSZOMB, 1761998610, 0, ProcStat{State: 'Z', StartTime: 1761998610000000}},
		{"unknown p_stat", 9, 0, 0, ProcStat{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := darwinProcStat(tt.pstat, tt.startSec, tt.startUsec); got != tt.want {
				t.Errorf("darwinProcStat(%d, %d, %d) = %+v, want %+v", tt.pstat, tt.startSec, tt.startUsec, got, tt.want)
			}
		})
	}
}

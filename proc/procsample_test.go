package proc

import (
	"encoding/binary"
	"testing"
)

// taskInfo lays out a macOS struct proc_taskinfo with the given thread
// counts and recognisable values in the other fields.
func taskInfo(threads, running int32) []byte {
	b := make([]byte, darwinTaskInfoSize)
	for i := range 6 { // sizes and times
		binary.LittleEndian.PutUint64(b[8*i:], uint64(1000+i))
	}
	for i := range 12 {
		binary.LittleEndian.PutUint32(b[48+4*i:], uint32(100+i))
	}
	binary.LittleEndian.PutUint32(b[48+4*9:], uint32(threads))
	binary.LittleEndian.PutUint32(b[48+4*10:], uint32(running))
	return b
}

func TestParseDarwinTaskInfo(t *testing.T) {
	tests := []struct {
		name    string
		b       []byte
		want    darwinTaskInfo
		wantErr bool
	}{
		{"idle server", taskInfo(1, 0), darwinTaskInfo{Threads: 1}, false},
		{"spinning", taskInfo(2, 1), darwinTaskInfo{Threads: 2, Running: 1}, false},
		{"short", taskInfo(1, 0)[:95], darwinTaskInfo{}, true},
		{"empty (the call filled nothing)", nil, darwinTaskInfo{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDarwinTaskInfo(tt.b)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("parseDarwinTaskInfo() = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestDarwinFDCount(t *testing.T) {
	tests := []struct{ n, want int }{{0, 0}, {8, 1}, {8 * 1021, 1021}, {12, 1}}
	for _, tt := range tests {
		if got := darwinFDCount(tt.n); got != tt.want {
			t.Errorf("darwinFDCount(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

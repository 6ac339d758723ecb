// Package proc reads processes and the system for the supervisor: whether a
// process runs and is still the one that started at a given time, its
// exit, its resource use, the system's PTYs and file handles, and who
// listens on a unix socket. It starts no tmux and talks to no tmux server;
// it is the supervisor's seam with the platform.
//
// Each platform difference sits behind one small seam, the Linux and macOS
// sides side by side (_linux.go, _darwin.go) and the macOS decoding in an
// untagged file tested on Linux:
//
//   - exitwatch: [WatchExit], a process's exit (a pidfd on Linux, kqueue
//     on macOS);
//   - procstat: [ReadProcStat], a process's state and start time, and
//     [ZombieStatus], the wait status read from a zombie;
//   - procsample: the fd count, fd limit and run state that
//     [SampleResources] adds to gopsutil's figures;
//   - sysres: [SystemResources], PTYs and file handles system-wide;
//   - listeners: [UnixListeners] and [ListenerPIDs], who listens on a
//     socket path whose file is gone.
//
// Where to start: [PIDAlive] and [StartTime] (a process's identity across
// PID reuse), [ProbeSocket] (is anything listening, without starting a
// server), [SampleResources] and [Resources].
package proc

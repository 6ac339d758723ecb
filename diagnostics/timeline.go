package diagnostics

import (
	"sort"
	"strconv"
	"time"
)

// timeline merges what the journal recorded with what the machine still
// shows (process start times, socket file times), oldest first, and ends
// with what diagnose found now.
func timeline(servers []ServerReport, facts []*serverFacts, now time.Time) []Event {
	out := []Event{}
	for i, sr := range servers {
		f := facts[i]
		if f.traceless() {
			continue
		}
		out = append(out, journalTimeline(f.journal, sr.Socket)...)
		for _, p := range f.procs {
			if !p.Started.IsZero() {
				out = append(out, Event{Time: p.Started, Socket: sr.Socket, Source: "process",
					What: "server PID " + strconv.Itoa(p.PID) + " started"})
			}
		}
		if z := f.zombie; z != nil && !z.Started.IsZero() {
			out = append(out, Event{Time: z.Started, Socket: sr.Socket, Source: "process",
				What: "server PID " + strconv.Itoa(z.PID) + " started (since then it " + waitPast(z.Status) + "; the kernel keeps no time of death)"})
		}
		if k := f.kernel; k != nil {
			out = append(out, Event{Time: k.Time, Socket: sr.Socket, Source: "kernel", What: k.Text})
		}
		if f.fileErr == nil {
			// A server binds its socket after it starts, often within the
			// start time's error (clockSlack): never list the file first.
			at := f.times.Mtime
			starts := []time.Time{}
			for _, p := range f.procs {
				starts = append(starts, p.Started)
			}
			if z := f.zombie; z != nil {
				starts = append(starts, z.Started)
			}
			for _, started := range starts {
				if at.Before(started) && started.Sub(at) <= clockSlack {
					at = started
				}
			}
			out = append(out, Event{Time: at, Socket: sr.Socket, Source: "socket", What: "socket file created"})
		}
		what := "diagnose: " + sr.State
		if v := sr.Verdict; v != nil && v.Cause != "" {
			what += ": " + title(v.Cause) + " (" + string(v.Confidence) + ")"
		}
		out = append(out, Event{Time: now, Socket: sr.Socket, Source: "diagnose", What: what})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

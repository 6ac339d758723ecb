package journal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// RestoreResult says what a restore did, or would do (DryRun).
type RestoreResult struct {
	Snapshot uint64   `json:"snapshot"` // sequence of the snapshot restored from; 0: none
	DryRun   bool     `json:"dry_run,omitempty"`
	Steps    []string `json:"steps"` // the plan, old IDs in braces
	Applied  int      `json:"applied"`
	// IDs maps the old IDs of everything matched or created to the live
	// ones.
	IDs    map[string]string `json:"ids,omitempty"`
	Notes  []string          `json:"notes,omitempty"`
	Errors []string          `json:"errors,omitempty"`
	// Agents says, per pane that ran an agent CLI, whether its
	// conversation was resumed, and why not.
	Agents []AgentOutcome `json:"agents,omitempty"`
}

// Restore restores srv from the latest snapshot of an earlier instance of
// its server. It implements supervisor.Restorer: the supervisor calls it
// on a server it has just started. Nothing is restored when there is no
// such snapshot or that server ended on purpose (kill_server, or its last
// session closed). Steps that fail are logged and skipped; the error says
// how many failed.
func (j *Journal) Restore(ctx context.Context, srv *supervisor.Server) error {
	if j == nil {
		return nil
	}
	res, err := j.restore(ctx, srv, 0, false, true, j.planOptions())
	if err == nil && len(res.Errors) > 0 {
		err = fmt.Errorf("journal: restore: %d of %d steps failed: %s", len(res.Errors), len(res.Steps), res.Errors[0])
	}
	return err
}

// RestoreRequest is what RestoreSnapshot is asked for.
type RestoreRequest struct {
	// Snapshot is the sequence of the snapshot to restore; 0: the latest
	// snapshot of an earlier instance of the server.
	Snapshot uint64
	// DryRun only plans the restore.
	DryRun bool
	// ResumeAgents resumes the agent CLIs of the restored panes, as
	// Options.ResumeAgents does for every restore.
	ResumeAgents bool
}

// RestoreSnapshot restores a snapshot onto srv, or only plans it. Unlike
// Restore it also restores after a deliberate end.
func (j *Journal) RestoreSnapshot(ctx context.Context, srv *supervisor.Server, req RestoreRequest) (RestoreResult, error) {
	if j == nil {
		return RestoreResult{}, ErrOff
	}
	o := j.planOptions()
	o.ResumeAgents = o.ResumeAgents || req.ResumeAgents
	return j.restore(ctx, srv, req.Snapshot, req.DryRun, false, o)
}

func (j *Journal) restore(ctx context.Context, srv tmuxServer, seq uint64, dryRun, auto bool, o PlanOptions) (RestoreResult, error) {
	sock := srv.Socket()
	key := socketKey(sock)
	if !dryRun {
		// Before anything else: the watcher must not snapshot the empty or
		// half-built tree of this server meanwhile.
		if !j.beginRestore(key) {
			return RestoreResult{}, errors.New("journal: a restore of this server is already running")
		}
		defer j.endRestore(key)
	}
	live, err := readState(ctx, srv)
	if err != nil {
		return RestoreResult{}, err
	}
	j.setServerPID(key, live.Server.PID)
	if !dryRun {
		// Across processes: one restore per server at a time. Then read
		// the state again: another restore may have just finished.
		if err := j.markRestoring(sock, live.Server.Instance()); errors.Is(err, ErrRestoreRunning) {
			return RestoreResult{}, err
		} else if err != nil {
			j.log.Warn("journal: restore marker", "err", err.Error())
		}
		if live, err = readState(ctx, srv); err != nil {
			return RestoreResult{}, errors.Join(err, j.clearRestoring(sock))
		}
	}
	src, ids, info, err := j.latestOther(sock, live.Server.Instance())
	if err == nil && seq != 0 {
		src, err = j.Snapshot(sock, seq)
	}
	if err == nil && src == nil && !auto {
		err = fmt.Errorf("%w of an earlier server on %s", ErrNoSnapshot, sock)
	}
	if err != nil || src == nil {
		if !dryRun {
			err = errors.Join(err, j.clearRestoring(sock))
		}
		return RestoreResult{}, err
	}
	if auto && info.LastDeath != nil && info.LastDeath.PID == src.Server.PID && deliberate(info.LastDeath.Cause) {
		j.Append(supervisor.Event{Type: EventRestore, Socket: sock, PID: live.Server.PID,
			Detail: fmt.Sprintf("not restored: server %d ended on purpose (%s)", src.Server.PID, info.LastDeath.Cause)})
		return RestoreResult{}, j.clearRestoring(sock)
	}
	plan := Plan(src, live, ids, o)
	res := RestoreResult{Snapshot: src.Seq, DryRun: dryRun, Steps: make([]string, len(plan.Steps)), Notes: plan.Notes, Agents: plan.Agents}
	for i, s := range plan.Steps {
		res.Steps[i] = s.String()
	}
	if dryRun {
		res.IDs = plan.Matched
		return res, nil
	}
	if len(plan.Steps) > 0 {
		supervisor.MarkRestoring(ctx) // from here, results and server_health say "restoring"
	}
	from, to := src.Server.Instance(), live.Server.Instance()
	started := time.Now()
	ex := apply(ctx, srv, plan)
	// A step that failed (a timeout on a loaded machine, a race with
	// another client) may have done its work without our learning the new
	// IDs, or left the rest undone. Plan again against the live state: the
	// plan matches by name and index what such steps made, and applies
	// only what is still missing. At most twice.
	for pass, failed := 1, len(ex.errors); pass <= 2 && failed > 0 && ctx.Err() == nil; pass++ {
		now, err := readState(ctx, srv)
		if err != nil {
			break
		}
		again := Plan(src, now, ex.ids, o)
		res.Notes = append(res.Notes, fmt.Sprintf("%d steps failed; planned again: %d steps", failed, len(again.Steps)))
		if len(again.Steps) == 0 {
			break
		}
		for _, s := range again.Steps {
			res.Steps = append(res.Steps, s.String())
		}
		redo := apply(ctx, srv, again)
		failed = len(redo.errors)
		ex.merge(redo)
	}
	res.Applied, res.IDs, res.Errors = ex.applied, ex.ids, ex.errors
	j.cameBackIn(sock, plan.Agents, ex.ids)
	if err := j.finishRestore(sock, from, to, live.Server.PID, ex); err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	created := ex.created()
	detail := fmt.Sprintf("snapshot %d: %d steps applied, %d failed; created %d sessions, %d windows, %d panes",
		src.Seq, ex.applied, len(ex.errors), created['$'], created['@'], created['%'])
	for _, a := range plan.Agents {
		detail += "; " + a.String()
	}
	j.Append(supervisor.Event{Type: EventRestore, Socket: sock, PID: live.Server.PID, Duration: time.Since(started), Detail: detail})
	for _, e := range ex.errors {
		j.log.Warn("journal: restore step failed", "socket", sock.String(), "err", e)
	}
	j.endRestore(key)
	if _, err := j.takeSnapshot(ctx, srv); err != nil {
		j.log.Warn("journal: snapshot after restore", "err", err.Error())
	}
	return res, nil
}

// deliberate reports whether a server that died of c was meant to end.
func deliberate(c death.Cause) bool {
	return c == death.CauseKillServer || c == death.CauseLastSession
}

// ErrRestoreRunning is returned when another process is restoring the
// same server.
var ErrRestoreRunning = errors.New("journal: another tmux-mcp process is restoring this server")

// markRestoring stores the restore marker of sock's server, unless a live
// process other than this one holds a fresh marker for the same instance.
func (j *Journal) markRestoring(sock tmux.Socket, instance string) error {
	return j.update(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, socketKey(sock), sock)
		if err != nil {
			return err
		}
		info := readInfo(b)
		if r := info.Restoring; r != nil && r.Instance == instance && r.Proc != os.Getpid() &&
			time.Since(r.Since) < restoringTTL && processAlive(r.Proc) {
			return fmt.Errorf("%w (PID %d)", ErrRestoreRunning, r.Proc)
		}
		info.Restoring = &restoring{Instance: instance, Since: time.Now(), Proc: os.Getpid()}
		return writeInfo(b, info)
	})
}

// clearRestoring removes this process's restore marker.
func (j *Journal) clearRestoring(sock tmux.Socket) error {
	return j.update(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, socketKey(sock), sock)
		if err != nil {
			return err
		}
		info := readInfo(b)
		if info.Restoring == nil || info.Restoring.Proc != os.Getpid() {
			return nil
		}
		info.Restoring = nil
		return writeInfo(b, info)
	})
}

// processAlive reports whether pid is a running process.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

// finishRestore records what a restore made, in one transaction: the ID
// map, the created records under the new pane IDs, the server's current
// instance; and clears the marker.
func (j *Journal) finishRestore(sock tmux.Socket, from, to string, pid int, ex execution) error {
	now := time.Now().UTC()
	defer j.forgetIDs(socketKey(sock))
	return j.update(func(tx *bolt.Tx) error {
		b, err := serverBucket(tx, socketKey(sock), sock)
		if err != nil {
			return err
		}
		if err := recordMap(b, from, to, ex.ids, now); err != nil {
			return err
		}
		for pane, c := range ex.records {
			c.ServerPID = pid
			if err := putCreatedTx(b, pane, c); err != nil {
				return err
			}
		}
		info := readInfo(b)
		info.Restoring = nil
		info.Instance = to
		return writeInfo(b, info)
	})
}

// execution is the outcome of applying a plan.
type execution struct {
	applied int
	ids     map[string]string // old ID -> live ID, matched and created
	newIDs  map[string]bool   // live IDs the plan created
	records map[tmux.PaneID]Created
	errors  []string
}

// merge adds a later pass to e.
func (e *execution) merge(o execution) {
	e.applied += o.applied
	maps.Copy(e.ids, o.ids)
	maps.Copy(e.newIDs, o.newIDs)
	maps.Copy(e.records, o.records)
	e.errors = append(e.errors, o.errors...)
}

// created counts the objects made, by ID sigil.
func (e execution) created() map[byte]int {
	out := map[byte]int{}
	for id := range e.newIDs {
		out[id[0]]++
	}
	return out
}

// apply runs plan's steps on srv in order. A step that needs an object a
// failed step would have created is skipped.
func apply(ctx context.Context, srv tmuxServer, plan RestorePlan) execution {
	ex := execution{ids: maps.Clone(plan.Matched), newIDs: map[string]bool{}, records: map[tmux.PaneID]Created{}}
	if ex.ids == nil {
		ex.ids = map[string]string{}
	}
	for i, st := range plan.Steps {
		if err := ctx.Err(); err != nil {
			ex.errors = append(ex.errors, fmt.Sprintf("restore cut short after %d of %d steps: %v", i, len(plan.Steps), err))
			break
		}
		argv, missing := resolveArgs(st.Args, ex.ids)
		if missing != "" {
			ex.errors = append(ex.errors, fmt.Sprintf("%s: skipped: %s was not restored", argv[0], missing))
			continue
		}
		out, err := srv.Replay(ctx, argv)
		if err != nil {
			ex.errors = append(ex.errors, fmt.Sprintf("%s: %v", argv[0], err))
			continue
		}
		ex.applied++
		if c := st.Creates; c != nil {
			f := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
			if len(f) != 3 {
				ex.errors = append(ex.errors, fmt.Sprintf("%s: unexpected output for the new IDs", argv[0]))
				continue
			}
			for i, old := range []string{string(c.Session), string(c.Window), string(c.Pane)} {
				if old != "" {
					ex.ids[old] = f[i]
					ex.newIDs[f[i]] = true
				}
			}
			if c.Created != nil && c.Pane != "" {
				ex.records[tmux.PaneID(f[2])] = *c.Created
			}
		}
	}
	return ex
}

// resolveArgs replaces the old IDs of args with live ones. It returns the
// first old ID it has no live ID for.
func resolveArgs(args []Arg, ids map[string]string) ([]string, string) {
	out := make([]string, len(args))
	for i, a := range args {
		if a.Ref == "" {
			out[i] = a.Text
			continue
		}
		id, ok := ids[a.Ref]
		if !ok {
			return out, a.Ref
		}
		out[i] = id + a.Text
	}
	return out, ""
}

func (j *Journal) planOptions() PlanOptions {
	return PlanOptions{RestoreCommands: j.opts.RestoreCommands, ResumeAgents: j.opts.ResumeAgents}
}

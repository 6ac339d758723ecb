package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// journalLoss compares what the journal held before a death with what the
// restore rebuilt: the objects of the snapshot the restore used that are
// missing from the snapshot the restore took when it finished. Both come
// from the journal (`tmux-mcp journal show`), so the agents' later changes
// do not blur the comparison. ok is false when tmux-mcp reported no
// restore with its snapshots after since.
func (r *run) journalLoss(ctx context.Context, since time.Time) (lost []string, journaled int, used, after uint64, ok bool, err error) {
	var evs struct {
		Result []struct {
			Type   string `json:"type"`
			Detail string `json:"detail"`
		} `json:"result"`
	}
	if err := r.m.mustTool(ctx, "journal_events", map[string]any{"since": since.UTC().Format(time.RFC3339Nano), "limit": 500}, &evs); err != nil {
		return nil, 0, 0, 0, false, err
	}
	for i, e := range evs.Result {
		if e.Type != "restore" || used != 0 {
			continue
		}
		if n, found := snapshotNumber(e.Detail); found {
			used = n
			for _, e2 := range evs.Result[i+1:] {
				if e2.Type == "snapshot" {
					after, ok = snapshotNumber(e2.Detail)
					break
				}
			}
		}
	}
	if used == 0 || !ok {
		return nil, 0, used, after, false, nil
	}
	before, err := r.journalObjects(ctx, used)
	if err != nil {
		return nil, 0, used, after, false, err
	}
	now, err := r.journalObjects(ctx, after)
	if err != nil {
		return nil, 0, used, after, false, err
	}
	return missing(before, now), len(before), used, after, true, nil
}

var snapshotRe = regexp.MustCompile(`^snapshot (\d+):`)

// snapshotNumber reads N from a journal detail "snapshot N: ...".
func snapshotNumber(detail string) (uint64, bool) {
	m := snapshotRe.FindStringSubmatch(detail)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	return n, err == nil
}

// journalObjects lists a snapshot's sessions, windows and panes with
// `tmux-mcp journal show`.
func (r *run) journalObjects(ctx context.Context, snapshot uint64) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.cfg.bin, "journal", "show", "-socket-path", r.sock, "-snapshot", strconv.FormatUint(snapshot, 10))
	cmd.Env = r.env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("repro: journal show %d: %w", snapshot, err)
	}
	return snapshotObjects(string(out)), nil
}

var (
	sessionLine = regexp.MustCompile(`^session \$\d+ ("(?:[^"\\]|\\.)*")`)
	windowLine  = regexp.MustCompile(`^  window @\d+ (\d+) ("(?:[^"\\]|\\.)*")`)
	paneLine    = regexp.MustCompile(`^    pane %\d+ (\d+) `)
)

// snapshotObjects parses `tmux-mcp journal show` output into object names:
// "session S", "window S:I NAME", "pane S:I NAME.P". IDs are left out: they
// change with every server.
func snapshotObjects(text string) []string {
	var objs []string
	var sess, win string
	for _, line := range strings.Split(text, "\n") {
		if m := sessionLine.FindStringSubmatch(line); m != nil {
			sess, win = unquote(m[1]), ""
			objs = append(objs, "session "+sess)
		} else if m := windowLine.FindStringSubmatch(line); m != nil && sess != "" {
			win = sess + ":" + m[1] + " " + unquote(m[2])
			objs = append(objs, "window "+win)
		} else if m := paneLine.FindStringSubmatch(line); m != nil && win != "" {
			objs = append(objs, "pane "+win+"."+m[1])
		}
	}
	return objs
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, `"`)
}

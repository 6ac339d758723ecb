package tools

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// paneMatch is one pane whose text matched: libtmux-mcp's
// PaneContentMatch without the geometry, tty, path, window name and
// is_caller (list_panes has them; tools/list has a byte budget).
type paneMatch struct {
	PaneID             string   `json:"pane_id"`
	PaneCurrentCommand string   `json:"pane_current_command"`
	WindowID           string   `json:"window_id"`
	SessionID          string   `json:"session_id"`
	SessionName        string   `json:"session_name"`
	MatchedLines       []string `json:"matched_lines"`
}

type searchResult struct {
	Matches        []paneMatch `json:"matches"`
	Truncated      bool        `json:"truncated"`
	TruncatedPanes []string    `json:"truncated_panes"`
	Total          int         `json:"total_panes_matched"`
	Offset         int         `json:"offset"`
	Limit          int         `json:"limit"`
}

var searchSchema = tooldef.Record(tField, []string{"truncated", "truncated_panes", "total_panes_matched", "offset", "limit"}, map[string]any{
	"matches": map[string]any{"type": "array", "items": tooldef.Record(tString,
		[]string{"pane_id", "pane_current_command", "window_id", "session_id", "session_name"},
		map[string]any{"matched_lines": tStrings})},
})

// SearchPanes finds panes whose text matches a pattern.
func SearchPanes(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("search_panes", "Find panes with a line containing pattern, on screen or in content_start..end.",
		tooldef.Read, searchSchema,
		mcp.WithString("pattern", mcp.Required()), pRegex, pMatchCase, pSessionName, pSessionID,
		mcp.WithInteger("content_start"), mcp.WithInteger("content_end"),
		mcp.WithInteger("max_matched_lines_per_pane"), mcp.WithInteger("limit"), mcp.WithInteger("offset"), pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		pattern := p.Str("pattern")
		if pattern == "" {
			return nil, tooldef.BadArg("pattern", "must not be empty")
		}
		re, err := compilePattern(pattern, p.Bool("regex"), p.Bool("match_case"))
		if err != nil {
			return nil, err
		}
		perPane, err := tooldef.Positive(p, "max_matched_lines_per_pane", searchLinesPerPane)
		if err != nil {
			return nil, err
		}
		limit, err := tooldef.Limit(p, searchPanes)
		if err != nil {
			return nil, err
		}
		offset, _ := p.Int("offset")
		if offset < 0 {
			return nil, tooldef.BadArg("offset", "must not be negative")
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		candidates, err := searchCandidates(ctx, srv, p)
		if err != nil {
			return nil, err
		}
		var start, end *int
		if n, ok := p.Int("content_start"); ok {
			start = &n
		}
		if n, ok := p.Int("content_end"); ok {
			end = &n
		}
		if start == nil && end == nil && fastPathOK(pattern, p.Bool("regex"), p.Bool("match_case")) {
			if candidates, err = fastFilter(ctx, srv, candidates, pattern, p.Bool("match_case")); err != nil {
				return nil, err
			}
		}
		res := searchResult{Matches: []paneMatch{}, TruncatedPanes: []string{}, Offset: offset, Limit: limit}
		var all []paneMatch
		linesCut := false
		for _, pn := range candidates {
			c, err := drive.ReadCapture(ctx, srv, supervisor.CaptureRequest{Pane: pn.ID, Start: start, End: end, Join: true})
			if err != nil {
				if te := asToolError(err); te != nil && te.class == "pane_not_found" {
					continue // gone since the listing
				}
				return nil, err
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSuffix(string(c.Content), "\n"), "\n") {
				if re.MatchString(l) {
					lines = append(lines, strings.TrimRight(l, " "))
				}
			}
			if len(lines) == 0 {
				continue
			}
			if len(lines) > perPane {
				lines = lines[len(lines)-perPane:]
				res.Truncated = true
				linesCut = true
			}
			all = append(all, paneMatch{PaneID: string(pn.ID), PaneCurrentCommand: pn.CurrentCommand, WindowID: string(pn.WindowID),
				SessionID: string(pn.SessionID), SessionName: pn.SessionName, MatchedLines: lines})
		}
		res.Total = len(all)
		for i, m := range all {
			switch {
			case i < offset:
			case i < offset+limit:
				res.Matches = append(res.Matches, m)
			default:
				res.TruncatedPanes = append(res.TruncatedPanes, m.PaneID)
				res.Truncated = true
			}
		}
		return searchResultOf(res, linesCut)
	})
}

// search_panes' default bounds: at most searchPanes panes, each with its
// last searchLinesPerPane matching lines (libtmux-mcp: 500 and 50, up to
// 25,000 lines in one result).
const (
	searchPanes        = 20
	searchLinesPerPane = 10
)

// searchResultOf encodes res, with a text block that says how to get
// what was left out: the panes past the page, the lines cut per pane.
func searchResultOf(res searchResult, linesCut bool) (*mcp.CallToolResult, error) {
	out, err := structured(res)
	if err != nil || !res.Truncated {
		return out, err
	}
	var how []string
	if n := len(res.TruncatedPanes); n > 0 {
		how = append(how, fmt.Sprintf("%d more panes matched: offset %d", n, res.Offset+len(res.Matches)))
	}
	if linesCut {
		how = append(how, "earlier matching lines: raise max_matched_lines_per_pane or narrow content_start..content_end")
	}
	out.Content = append(out.Content, mcp.NewTextContent(strings.Join(how, "; ")+"."))
	return out, nil
}

// Pattern options shared by search_panes and wait_for_text.
var (
	pRegex     = mcp.WithBoolean("regex")
	pMatchCase = mcp.WithBoolean("match_case")
)

// compilePattern compiles a search pattern: literal unless regex, case
// insensitive unless matchCase.
func compilePattern(pattern string, regex, matchCase bool) (*regexp.Regexp, error) {
	if !regex {
		pattern = regexp.QuoteMeta(pattern)
	}
	if !matchCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, &toolError{msg: "Invalid regex pattern: " + strings.TrimPrefix(err.Error(), "error parsing regexp: "), class: "argument"}
	}
	return re, nil
}

// searchCandidates lists the panes to search: the session's, or the
// server's, in pane ID order (%2 before %10), each once.
func searchCandidates(ctx context.Context, srv *supervisor.Server, p tooldef.Args) ([]tmux.Pane, error) {
	sid, name, err := sessionRef(p)
	if err != nil {
		return nil, err
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	if sid != "" || name != "" {
		i := slices.IndexFunc(panes, func(x tmux.Pane) bool {
			return (sid != "" && x.SessionID == sid) || (sid == "" && x.SessionName == name)
		})
		switch {
		case i < 0 && sid != "":
			return nil, notFound("session_id="+string(sid), "session_not_found")
		case i < 0:
			return nil, notFound("session_name="+name, "session_not_found")
		}
		want := panes[i].SessionID
		panes = slices.DeleteFunc(panes, func(x tmux.Pane) bool { return x.SessionID != want })
	}
	slices.SortStableFunc(panes, func(a, b tmux.Pane) int { return paneOrder(a.ID) - paneOrder(b.ID) })
	return slices.CompactFunc(panes, func(a, b tmux.Pane) bool { return a.ID == b.ID }), nil
}

func paneOrder(id tmux.PaneID) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(string(id), "%"))
	return n
}

// fastPathOK reports whether tmux's own filter (#{C:...}, a glob match
// over each visible row) can narrow the candidates without missing a
// pane that the confirming match would keep: the pattern is literal (a
// regex without metacharacters counts), has no blank at either end (tmux
// strips trailing blanks from rows), and case folding, if asked for, is
// ASCII (tmux folds as the server's locale does).
func fastPathOK(pattern string, regex, matchCase bool) bool {
	if regex && strings.ContainsAny(pattern, `\.*+?{}()[]|^$`) {
		return false
	}
	if strings.TrimSpace(pattern) != pattern || strings.ContainsFunc(pattern, unicode.IsControl) {
		return false
	}
	if !matchCase && strings.ContainsFunc(pattern, func(r rune) bool { return r > unicode.MaxASCII }) {
		return false
	}
	return true
}

// fastFilter keeps the candidates that tmux's search finds the pattern in.
// The pattern is escaped twice: for fnmatch (\ before * ? [ \) and for
// tmux's format expansion (# before # and }), so that it can neither
// expand a format nor start a #(...) job.
func fastFilter(ctx context.Context, srv *supervisor.Server, panes []tmux.Pane, pattern string, matchCase bool) ([]tmux.Pane, error) {
	flag := "C/i:"
	if matchCase {
		flag = "C:"
	}
	ids, err := srv.FilterPanes(ctx, "#{"+flag+filterEscape(pattern)+"}")
	if err != nil {
		return nil, err
	}
	hit := map[tmux.PaneID]bool{}
	for _, id := range ids {
		hit[id] = true
	}
	return slices.DeleteFunc(panes, func(x tmux.Pane) bool { return !hit[x.ID] }), nil
}

// filterEscape escapes a literal for #{C:...}.
func filterEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		case '#', '}':
			b.WriteByte('#')
		}
		b.WriteRune(r)
	}
	return b.String()
}

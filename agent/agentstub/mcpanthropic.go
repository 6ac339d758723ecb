package agentstub

import (
	"regexp"
	"strings"
)

// deferredMarker begins the system text in which Claude Code names its
// deferred tools, one a line after the colon, up to an empty line.
const deferredMarker = "The following deferred tools are now available via ToolSearch."

// anthropicOffered returns the names of the tools req offers: its tools,
// then the deferred tools its messages name; loaded says which can be
// called as they are (req's tools).
func anthropicOffered(req *anthropicRequest) (names []string, loaded map[string]bool) {
	loaded = map[string]bool{}
	for _, t := range req.Tools {
		names = append(names, t.Name)
		loaded[t.Name] = true
	}
	for _, m := range req.Messages {
		for _, b := range anthropicBlocks(m.Content) {
			for _, n := range deferredNames(b.Text) {
				if !loaded[n] {
					names = append(names, n)
				}
			}
		}
	}
	return names, loaded
}

// Claude Code starts a turn while MCP servers still connect (-p waits for
// them only so long): it names them in a system text and asks the model
// to search for their tools with ToolSearch, which waits for them; a
// search that found nothing while they connect says so.
const (
	connectingMarker = "The following MCP servers are still connecting"
	searchConnecting = "Some MCP servers are still connecting"
)

// anthropicConnecting says req names MCP servers still connecting.
func anthropicConnecting(req *anthropicRequest) bool {
	for _, m := range req.Messages {
		for _, b := range anthropicBlocks(m.Content) {
			if strings.Contains(b.Text, connectingMarker) {
				return true
			}
		}
	}
	return false
}

// deferredNames are the names of the deferred-tools list in text.
func deferredNames(text string) []string {
	_, after, ok := strings.Cut(text, deferredMarker)
	if !ok {
		return nil
	}
	_, list, ok := strings.Cut(after, ":\n")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, l := range strings.Split(list, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.ContainsAny(l, " \t") {
			names = append(names, l)
		}
	}
	return names
}

// anthropicMCP is the tool_use block of reply's MCP tool call (ToolSearch
// first for a deferred tool), or nil and the text that says the tool is
// not offered.
func (s *Stub) anthropicMCP(req *anthropicRequest, reply Reply) (use map[string]any, text string) {
	names, loaded := anthropicOffered(req)
	connecting := strings.Contains(reply.searchResult, searchConnecting)
	if reply.searches == 0 {
		connecting = anthropicConnecting(req)
	}
	c := s.callMCP("toolu_stub", reply, names, func(n string) bool { return loaded[n] }, connecting)
	if c.Name == "" {
		return nil, c.Text
	}
	return map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.Args}, reply.Text
}

// anthropicNames are the names of the tools req offers (anthropicOffered).
func anthropicNames(req *anthropicRequest) []string {
	names, _ := anthropicOffered(req)
	return names
}

// Claude Code, in a session on protocol 2026-07-28, moves a call the
// server answers with a task to the background: the tool's result says
// so ("... It was moved to the background as task k6ap5p4xn and keeps
// running ..."), and the result comes later in a user message of its own,
// a <task-notification> with the task's id, status and result.
var (
	backgroundTaskID = regexp.MustCompile(`moved to the background as task ([A-Za-z0-9_-]+)`)
	taskNotification = regexp.MustCompile(`(?s)<task-notification>(.*?)</task-notification>`)
	notificationID   = regexp.MustCompile(`<task-id>([^<]+)</task-id>`)
	notificationDone = regexp.MustCompile(`<status>([^<]+)</status>`)
	notificationText = regexp.MustCompile(`(?s)<result>\n?(.*?)\n?</result>`)
)

// backgroundTask is the id of the background task a tool result says the
// call became, or "".
func backgroundTask(result string) string {
	if m := backgroundTaskID.FindStringSubmatch(result); m != nil {
		return m[1]
	}
	return ""
}

// taskNotice is a task notification: the task, whether it completed, its
// result.
type taskNotice struct {
	id, result string
	completed  bool
}

// taskNotices are the task notifications in text.
func taskNotices(text string) []taskNotice {
	var out []taskNotice
	for _, m := range taskNotification.FindAllStringSubmatch(text, -1) {
		id := notificationID.FindStringSubmatch(m[1])
		if id == nil {
			continue
		}
		n := taskNotice{id: strings.TrimSpace(id[1])}
		if st := notificationDone.FindStringSubmatch(m[1]); st != nil {
			n.completed = strings.TrimSpace(st[1]) == "completed"
		}
		if r := notificationText.FindStringSubmatch(m[1]); r != nil {
			n.result = r[1]
		}
		out = append(out, n)
	}
	return out
}

// anthropicTasks ends the calls whose background tasks' notifications
// req's messages carry: a user message's (the task ended after the turn),
// a system message's (Claude Code 2.1.332, when the task ends while the
// model is still at work), in a text block or in a tool_result's content.
func (s *Stub) anthropicTasks(req *anthropicRequest) {
	for _, m := range req.Messages {
		if m.Role != "user" && m.Role != "system" {
			continue
		}
		for _, text := range notificationTexts(anthropicBlocks(m.Content)) {
			for _, n := range taskNotices(text) {
				s.taskOver(n.id, n.result, !n.completed)
			}
		}
	}
}

// notificationTexts are the texts of bs, tool results' contents included,
// that carry a task notification.
func notificationTexts(bs []anthropicBlock) []string {
	var out []string
	for _, b := range bs {
		switch {
		case b.Type == "text" && strings.Contains(b.Text, "<task-notification>"):
			out = append(out, b.Text)
		case b.Type == "tool_result" && len(b.Content) > 0:
			out = append(out, notificationTexts(anthropicBlocks(b.Content))...)
		}
	}
	return out
}

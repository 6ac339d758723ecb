package tools

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Old IDs after a restore. A new tmux server numbers its sessions,
// windows and panes from 0 again; after the journal restored a dead
// server's tree, an agent may still hold the IDs of the old one. A call
// that names an ID the live server does not know, and that the journal
// maps to an object it restored on this server instance, acts on the new
// object and says so: the result's _meta and an extra text block carry
// resolved_ids {"old": "new"}. An ID the live server knows is used as
// given, even if it once named another object: the agent must re-target
// with the restore report's ID map (README, recover_after_crash).

// idParams are the parameters that name a tmux object by ID.
var idParams = []string{"session_id", "window_id", "pane_id", "source_pane_id", "target_pane_id"}

// targetParams are the parameters that name a tmux object at all: by ID,
// name or index.
var targetParams = append(slices.Clip(idParams), "session_name", "window_index", "target", "target_pane")

// resolutions collects the old-to-new IDs one call used, and whether it
// was answered while its server's sessions were being restored.
type resolutions struct {
	mu        sync.Mutex
	m         map[string]string
	restoring bool
	// gated is the server whose restore gate was closed when the call
	// began, before its Restorer said whether there is anything to
	// restore: annotate asks again.
	gated *supervisor.Server
}

// awaitRestore makes a call that names an object (by ID, name or index)
// wait while a restore of srv's sessions runs: the object may not exist
// yet, and the ID map that resolves old IDs is written when it ends. Other calls go
// on, each tmux command waiting as it must (the supervisor's restore gate); their
// result says that a restore was under way.
func (d Deps) awaitRestore(ctx context.Context, srv *supervisor.Server, p tooldef.Args) error {
	if srv == nil || srv.RestoreState() == supervisor.RestoreNone {
		return nil
	}
	for _, k := range targetParams {
		if p.Str(k) != "" {
			return srv.AwaitRestore(ctx)
		}
	}
	if r, _ := ctx.Value(resolutionsKey{}).(*resolutions); r != nil {
		r.mu.Lock()
		if srv.RestoreState() == supervisor.RestoreRunning {
			r.restoring = true
		} else {
			r.gated = srv
		}
		r.mu.Unlock()
	}
	return nil
}

type resolutionsKey struct{}

// withResolutions gives a call a place to record the IDs it resolved.
func withResolutions(ctx context.Context) (context.Context, *resolutions) {
	r := &resolutions{}
	return context.WithValue(ctx, resolutionsKey{}, r), r
}

func (r *resolutions) add(old, cur string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]string{}
	}
	r.m[old] = cur
}

// annotate adds the resolved IDs, if any, to res: in _meta and as a text
// block, so that no agent misses that it acted on a new ID. A call
// answered while a restore was restoring the tree says so too; a restore
// that finds nothing to restore (a brand-new server) is not mentioned.
func (r *resolutions) annotate(res *mcp.CallToolResult) {
	r.mu.Lock()
	m, restoring := maps.Clone(r.m), r.restoring || r.gated != nil && r.gated.RestoreState() == supervisor.RestoreRunning
	r.mu.Unlock()
	if restoring && res != nil {
		setMeta(res, "restoring", true)
		res.Content = append(res.Content, mcp.NewTextContent("restoring: tmux-mcp is restoring this server's "+
			"sessions from the journal (the server before it ended); this answer may show part of them "+
			"(server_health says when it is done)"))
	}
	if len(m) == 0 || res == nil {
		return
	}
	setMeta(res, "resolved_ids", m)
	b, _ := mcpserver.EncodeJSON(m) // a map of strings cannot fail
	res.Content = append(res.Content, mcp.NewTextContent("resolved_ids: "+string(b)+
		" (IDs from before the tmux server was restored, replaced by the restored objects; use the new IDs)"))
}

// resolveIDs replaces, in p, each ID that srv does not know and that the
// journal maps to an object restored on srv's current instance, and
// records the replacement for the result. It asks tmux only when the
// journal has a mapping for an ID the call names.
func (d Deps) resolveIDs(ctx context.Context, srv *supervisor.Server, p tooldef.Args) error {
	if d.Journal == nil || srv == nil {
		return nil
	}
	var live map[string]bool
	for _, k := range idParams {
		id := p.Str(k)
		if id == "" {
			continue
		}
		cur, ok := d.Journal.Resolve(srv.Socket(), id)
		if !ok || cur == id {
			continue
		}
		if live == nil {
			panes, err := srv.ListPanes(ctx)
			if err != nil {
				return err
			}
			live = map[string]bool{}
			for _, x := range panes {
				live[string(x.SessionID)], live[string(x.WindowID)], live[string(x.ID)] = true, true, true
			}
		}
		if live[id] {
			continue // the live server's own object, whatever it was before
		}
		p[k] = cur
		if r, _ := ctx.Value(resolutionsKey{}).(*resolutions); r != nil {
			r.add(id, cur)
		}
	}
	return nil
}

// setMeta sets one field of res's _meta.
func setMeta(res *mcp.CallToolResult, key string, v any) {
	if res.Meta == nil {
		res.Meta = mcp.NewMetaFromMap(map[string]any{})
	}
	if res.Meta.AdditionalFields == nil {
		res.Meta.AdditionalFields = map[string]any{}
	}
	res.Meta.AdditionalFields[key] = v
}

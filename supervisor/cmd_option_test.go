package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestOptionMethods: set-option, show-options and show-hooks by scope,
// typed, over both transports. Values hold "#{...}" and "#(...)", names a
// leading "-" would read as a flag without "--".
func TestOptionMethods(t *testing.T) {
	runCmdCases(t, []cmdCase{
		{"SetShowOption", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			value := "v #{pane_id} #(false) -x"
			scopes := []struct {
				scope OptionScope
				cli   []string // show-options' flags for the same table
			}{
				{OptionScope{Server: true, Global: true}, []string{"-s", "-g"}},
				{OptionScope{Global: true}, []string{"-g"}},
				{OptionScope{Global: true, Window: true}, []string{"-g", "-w"}},
				{OptionScope{Target: string(f.s)}, []string{"-t", string(f.s)}},
				{OptionScope{Window: true, Target: string(f.w)}, []string{"-w", "-t", string(f.w)}},
				{OptionScope{Pane: true, Target: string(f.p)}, []string{"-p", "-t", string(f.p)}},
			}
			for i, sc := range scopes {
				name := "@tmcp_" + f.name + "_" + string(rune('a'+i))
				if err := f.srv.SetOption(ctx, sc.scope, name, value); err != nil {
					return err
				}
				got, err := f.srv.ShowOption(ctx, sc.scope, name)
				if err != nil {
					return err
				}
				wantEq(t, "ShowOption "+strings.Join(sc.cli, " "), got, value+"\n")
				wantEq(t, "show-options "+strings.Join(sc.cli, " "),
					f.ts.MustTmux(append(append([]string{"show-options", "-v"}, sc.cli...), name)...), value)
			}
			return nil
		}, nil},
		{"ShowOptionInherited", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			name := "@tmcp_" + f.name + "_inherited"
			if err := f.srv.SetOption(ctx, OptionScope{Global: true, Window: true}, name, "from global"); err != nil {
				return err
			}
			got, err := f.srv.ShowOption(ctx, OptionScope{Pane: true, Target: string(f.p)}, name)
			wantEq(t, "a pane's inherited value", got, "from global\n")
			return err
		}, nil},
		{"OptionNamedLikeAFlag", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			// "--" ends the flags: "-g" is an option name tmux refuses,
			// not the global flag.
			err := f.srv.SetOption(ctx, OptionScope{Target: string(f.s)}, "-g", "x")
			if !errors.Is(err, tmux.ErrCommand) {
				t.Errorf("SetOption(-g) = %v, want tmux's refusal", err)
			}
			return nil
		}, nil},
		{"ShowHooks", func(ctx context.Context, t *testing.T, f *cmdFixture) error {
			f.ts.MustTmux("set-hook", "-t", string(f.s), "after-new-window", "display-message -p session")
			f.ts.MustTmux("set-hook", "-g", "after-rename-window", "display-message -p global")
			t.Cleanup(func() { f.ts.Tmux("set-hook", "-gu", "after-rename-window") }) //nolint:errcheck // the server may be gone
			all, err := f.srv.ShowHooks(ctx, OptionScope{Target: string(f.s)}, "")
			if err != nil {
				return err
			}
			if !strings.Contains(all, "after-new-window") || !strings.Contains(all, "display-message -p session") {
				t.Errorf("ShowHooks of %s = %q, want its after-new-window", f.s, all)
			}
			one, err := f.srv.ShowHooks(ctx, OptionScope{Global: true}, "after-rename-window")
			if err != nil {
				return err
			}
			if !strings.Contains(one, "display-message -p global") || strings.Contains(one, "after-new-window") {
				t.Errorf("ShowHooks global after-rename-window = %q, want that hook only", one)
			}
			if _, err := f.srv.ShowHooks(ctx, OptionScope{Server: true}, ""); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("ShowHooks with Server = %v, want ErrInvalidArgument", err)
			}
			return nil
		}, nil},
	})
}

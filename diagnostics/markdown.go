package diagnostics

import (
	"fmt"
	"strings"
	"time"
)

// Markdown renders the report in the shape of a hand-written incident
// write-up: Summary, Timeline, Evidence, Likely causes, Next steps.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# tmux diagnosis\n\n")
	w("**Generated:** %s · %s/%s · **status: %s** (exit %d)\n\n", r.GeneratedAt.UTC().Format("2006-01-02 15:04:05 MST"),
		r.Host.OS, r.Host.Arch, strings.ToUpper(string(r.Status)), r.ExitCode())

	w("## Summary\n\n")
	for _, f := range r.Summary {
		w("- %s%s%s\n", badge(f.Status), socketPrefix(f.Socket), inline(f.Text))
	}

	w("\n## Timeline\n\n")
	if len(r.Timeline) == 0 {
		w("Nothing to put on a timeline: no server, no journal record.\n")
	}
	for i, e := range r.Timeline {
		w("%d. **%s** %s- %s _(%s)_\n", i+1, e.Time.UTC().Format("2006-01-02 15:04:05.000"), socketPrefix(e.Socket), inline(e.What), e.Source)
	}

	w("\n## Evidence\n")
	for _, s := range r.Servers {
		w("\n### Server `%s`: %s", s.Socket, s.State)
		if s.PID > 0 {
			w(", PID %d", s.PID)
		}
		if s.Version != "" {
			w(", tmux %s", s.Version)
		}
		w("\n\n")
		if v := s.Verdict; v != nil {
			if v.Cause == "" {
				w("**Verdict:** alive (%s). %s\n", v.Confidence, inline(v.Detail))
			} else {
				w("**Verdict:** `%s` (%s). %s\n", v.Cause, v.Confidence, inline(v.Detail))
			}
			w("_Basis:_ %s\n\n", inline(v.Basis))
		}
		writeChecks(&b, s.Checks)
	}
	w("\n### System\n\n")
	writeChecks(&b, r.System)

	w("\n## Likely causes\n\n")
	if len(r.Causes) == 0 {
		w("None: nothing failed or warned.\n\n")
	}
	for i, c := range r.Causes {
		w("### %d. %s (%s)%s\n\n", i+1, c.Title, c.Confidence, socketSuffix(c.Socket))
		for _, s := range c.For {
			w("- **For:** %s\n", inline(s))
		}
		for _, s := range c.Against {
			w("- **Against:** %s\n", inline(s))
		}
		if len(c.Against) == 0 {
			w("- **Against:** nothing found\n")
		}
		w("\n")
	}

	w("## Next steps\n\n")
	if len(r.NextSteps) == 0 {
		w("Nothing to do.\n")
	} else {
		w("```sh\n")
		for _, s := range r.NextSteps {
			w("%s\n", s)
		}
		w("```\n")
	}
	return b.String()
}

// writeChecks writes the checks that found something with their evidence,
// the passing ones in one line each, and the skipped ones in one line.
func writeChecks(b *strings.Builder, checks []Check) {
	var skipped []string
	for _, c := range checks {
		if c.Status == StatusSkipped {
			skipped = append(skipped, c.Title+" ("+strings.TrimPrefix(c.Summary, "skipped: ")+")")
			continue
		}
		fmt.Fprintf(b, "- %s**%s:** %s\n", badge(c.Status), c.Title, inline(c.Summary))
		for _, f := range c.Evidence {
			fmt.Fprintf(b, "  - %s: %s\n", f.Name, value(f.Value))
		}
		if c.Remedy != "" {
			fmt.Fprintf(b, "  - _Remedy:_ %s\n", inline(c.Remedy))
		}
		for _, cmd := range c.Commands {
			fmt.Fprintf(b, "  - `%s`\n", cmd)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(b, "- Skipped: %s\n", inline(strings.Join(skipped, "; ")))
	}
}

func badge(s Status) string {
	switch s {
	case StatusFail:
		return "**FAIL** "
	case StatusWarn:
		return "**WARN** "
	case StatusOK:
		return "ok "
	}
	return ""
}

func socketPrefix(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "` "
}

func socketSuffix(s string) string {
	if s == "" {
		return ""
	}
	return ": `" + s + "`"
}

// value renders a fact's value: text that Markdown would mangle (paths,
// names with underscores, command output) goes in backticks.
func value(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "-"
		}
		if strings.ContainsAny(x, "/_*<>|`\\") {
			return "`" + strings.ReplaceAll(x, "`", "'") + "`"
		}
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

// inline escapes the characters that would turn prose into emphasis or
// break a list item.
func inline(s string) string {
	r := strings.NewReplacer("\n", " ", "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

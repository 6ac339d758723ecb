package loadtest

import (
	"html/template"
	"strings"
	"testing"
)

func TestNewPage(t *testing.T) {
	page := NewPage("t", template.FuncMap{"up": strings.ToUpper},
		`<style>{{template "style"}}</style>{{up "x"}}|{{template "passfail" .Passed}}|{{template "verdicts" .Verdicts}}|{{template "leaked" .Leaked}}`)
	tests := []struct {
		name    string
		passed  bool
		vs      []Verdict
		leaked  []string
		has     []string
		hasNone []string
	}{
		{"pass, no leaks", true, []Verdict{{Name: "cleanup", Pass: true, Detail: "none left"}}, nil,
			[]string{"table{border-collapse", "}</style>X|", `<span class="pass">PASS</span>`,
				`<td class="pass">ok</td><td>cleanup</td><td>none left</td>`, "|none"},
			[]string{"FAIL"}},
		{"fail, leaks escaped", false, []Verdict{{Name: "no errors", Detail: "a <b>"}}, []string{"12 (sh -c <x>)", "13 (tmux)"},
			[]string{`<span class="fail">FAIL</span>`, `<td class="fail">FAIL</td><td>no errors</td><td>a &lt;b&gt;</td>`,
				"|12 (sh -c &lt;x&gt;); 13 (tmux); "},
			[]string{"PASS", "none"}},
	}
	for _, tt := range tests {
		var b strings.Builder
		err := page.Execute(&b, struct {
			Passed   bool
			Verdicts []Verdict
			Leaked   []string
		}{tt.passed, tt.vs, tt.leaked})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, s := range tt.has {
			if !strings.Contains(b.String(), s) {
				t.Errorf("%s: page lacks %q:\n%s", tt.name, s, b.String())
			}
		}
		for _, s := range tt.hasNone {
			if strings.Contains(b.String(), s) {
				t.Errorf("%s: page has %q:\n%s", tt.name, s, b.String())
			}
		}
	}
}

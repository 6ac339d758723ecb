package agent

import (
	"fmt"
	"regexp"
	"strings"
)

// rule is one row of the table: how to recognise an agent CLI in a
// process tree, and how to read its screen. Every row has a test of its
// own on screens captured from the real program (testdata/<name>-*.txt).
type rule struct {
	name Name
	// bins are the base names the program runs as: its executable, or the
	// script an interpreter runs.
	bins []string
	// packages are package directories a script's path passes through
	// ("@anthropic-ai/claude-code"): a program installed under another
	// name is still recognised.
	packages []string
	// working matches a line shown only while the agent works on a turn
	// (its interrupt hint).
	working []*regexp.Regexp
	// asking matches a line of a permission question; option matches the
	// lines of its choices. A question counts only where the program
	// draws its dialogs: below the transcript, in place of the input
	// area (see dialog).
	asking []*regexp.Regexp
	option *regexp.Regexp
	// headed: the dialog draws a header and the command above its
	// asking line, from its top border (a rule or a box's top) down; the
	// question starts there. Otherwise it starts at the asking line and
	// the command follows it.
	headed bool
	// input matches the first line of the input area; group 1 is what is
	// typed there (or the program's placeholder). boxed: the line right
	// above it is a rule (a row of ─ or ▄), which tells the input box
	// from a prompt the transcript repeats.
	input *regexp.Regexp
	boxed bool
	// turnEnd, when set, matches the line an agent prints when a turn
	// ends: after the last prompt, no such line means it still works.
	turnEnd *regexp.Regexp
	// step, when set, matches the line of a step of a turn that has not
	// ended (a tool call that waits to be validated, to be allowed or to
	// run): after the last prompt, such a line means it still works, even
	// on a screen whose working line is not drawn (yet).
	step []*regexp.Regexp
	// prompt matches a line that shows a prompt the agent was given, in
	// its transcript.
	prompt *regexp.Regexp
	// answers are the keys that answer a permission question.
	answers map[Answer][]string
}

// re compiles the expressions of one row.
func re(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

// rules is the table: one row per agent CLI. The screens each row was
// written from are in testdata; the versions they came from are in
// agentstub/NOTES.md.
var rules = []*rule{
	{
		name:     "claude",
		bins:     []string{"claude", "claude.exe"},
		packages: []string{"@anthropic-ai/claude-code"},
		working:  re(`\besc to interrupt\b`),
		asking:   re(`^\s*Do you want to (proceed|make this edit|create|allow)`),
		option:   regexp.MustCompile(`^\s*❯?\s*\d+\.\s+\S`),
		headed:   true,
		input:    regexp.MustCompile(`^❯ ?(.*)$`),
		boxed:    true,
		prompt:   regexp.MustCompile(`^❯ \S`),
		answers:  map[Answer][]string{Yes: {"1"}, YesAlways: {"2"}, No: {"Escape"}},
	},
	{
		name:     "codex",
		bins:     []string{"codex", "codex.js"},
		packages: []string{"@openai/codex"},
		working:  re(`\besc to interrupt\b`),
		// Codex hides its working line while a reply streams: a turn has
		// ended once its summary line follows the last prompt.
		turnEnd: regexp.MustCompile(`^\s*(Worked for |■ )`),
		asking:  re(`^\s*Would you like to (run|make|apply) `),
		option:  regexp.MustCompile(`^\s*›?\s*\d+\.\s+\S`),
		input:   regexp.MustCompile(`^› ?(.*)$`),
		prompt:  regexp.MustCompile(`^› \S`),
		answers: map[Answer][]string{Yes: {"y"}, YesAlways: {"p"}, No: {"Escape"}},
	},
	{
		name:     "gemini",
		bins:     []string{"gemini"},
		packages: []string{"@google/gemini-cli"},
		working:  re(`\(esc to cancel`),
		// A tool call's line in its box: status o (scheduled), ⊷
		// (executing) or ? (awaiting approval); ✓, x and - end it.
		step:    re(`^\s*│\s*[o⊷?]\s+\S`),
		asking:  re(`^\s*[│|]?\s*(Allow execution|Apply this change\?|Do you want to proceed\?)`),
		option:  regexp.MustCompile(`^\s*[│|]?\s*[●○>]?\s*\d+\.\s+\S`),
		headed:  true,
		input:   regexp.MustCompile(`^ > ?(.*)$`),
		boxed:   true,
		prompt:  regexp.MustCompile(`^ > \S`),
		answers: map[Answer][]string{Yes: {"1"}, YesAlways: {"2"}, No: {"Escape"}},
	},
	{name: "opencode", bins: []string{"opencode"}, packages: []string{"opencode-ai"}},
	{name: "aider", bins: []string{"aider"}, packages: []string{"aider-chat"}},
	{name: "cursor-agent", bins: []string{"cursor-agent"}, packages: []string{"cursor-agent"}},
}

// ruleOf returns the row of name, or nil.
func ruleOf(name Name) *rule {
	for _, r := range rules {
		if r.name == name {
			return r
		}
	}
	return nil
}

// anyLine returns the last line of lines that matches one of exprs.
func anyLine(lines []string, exprs []*regexp.Regexp) (int, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		for _, e := range exprs {
			if e.MatchString(lines[i]) {
				return i, true
			}
		}
	}
	return 0, false
}

// isWorking reports whether the screen shows r's agent at work.
func (r *rule) isWorking(lines []string) bool {
	_, ok := anyLine(lines, r.working)
	return ok
}

// isAsking reports whether the screen shows r's agent's permission
// question (see dialog).
func (r *rule) isAsking(lines []string) bool {
	_, _, ok := r.dialog(lines)
	return ok
}

// dialog finds the permission question on the screen where r's program
// draws its dialogs: the first asking line below which neither an input
// area nor the end of a turn is drawn (each of these CLIs draws its
// transcript above its input area and a question in its place, so a
// question below them is the transcript's: text a reply printed), and
// the question's last option line (q when none shows).
func (r *rule) dialog(lines []string) (q, end int, ok bool) {
	for q = range lines {
		if !matchAny(lines[q], r.asking) || r.transcriptBelow(lines, q) {
			continue
		}
		end = q
		for i := q + 1; i < len(lines); i++ {
			if r.option != nil && r.option.MatchString(unbox(lines[i])) {
				end = i
			}
		}
		return q, end, true
	}
	return 0, 0, false
}

// transcriptBelow reports whether a line below line q is one the program
// draws only below its transcript: its input line (for a boxed row, with
// the box's rule above it; for another, unless it is one of the
// question's options, which Codex marks with the same ›), or the line
// that ends a turn.
func (r *rule) transcriptBelow(lines []string, q int) bool {
	for i := q + 1; i < len(lines); i++ {
		l := lines[i]
		if r.turnEnd != nil && r.turnEnd.MatchString(l) {
			return true
		}
		if r.input == nil || !r.input.MatchString(l) {
			continue
		}
		if r.boxed {
			if isRule(lines[i-1]) {
				return true
			}
			continue
		}
		if r.option == nil || !r.option.MatchString(unbox(l)) {
			return true
		}
	}
	return false
}

// matchAny reports whether one of exprs matches l.
func matchAny(l string, exprs []*regexp.Regexp) bool {
	for _, e := range exprs {
		if e.MatchString(l) {
			return true
		}
	}
	return false
}

// maxQuestionLines bounds the question reported: past it, its first
// questionHead lines and its last questionTail (the question line and
// its options) are kept, and the cut says how many lines it left out.
const (
	maxQuestionLines = 64
	questionHead     = 44
	questionTail     = 16
)

// question returns the permission question: for a headed row from the
// top of the dialog (its border; the top of the screen when the screen
// does not show it, and the question says so), else from the asking
// line, down to its last option, each line trimmed of box borders.
func (r *rule) question(lines []string) string {
	q, end, ok := r.dialog(lines)
	if !ok {
		return ""
	}
	start := q
	cutAbove := false
	if r.headed {
		for start > 0 && !boxTop(lines[start-1]) {
			start--
		}
		cutAbove = start == 0
	}
	var out []string
	if cutAbove {
		out = append(out, "[the question starts above the screen: its first lines are not shown]")
	}
	for _, l := range lines[start : end+1] {
		l = strings.TrimSpace(unbox(l))
		if l != "" && !isRule(l) && !boxTop(l) && !strings.HasPrefix(l, "╰") {
			out = append(out, strings.TrimSpace(unbox(l)))
		}
	}
	if len(out) > maxQuestionLines {
		cut := len(out) - questionHead - questionTail
		out = append(append(out[:questionHead:questionHead],
			fmt.Sprintf("[%d lines of the question not shown]", cut)), out[len(out)-questionTail:]...)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// inputArea finds the input line (the last line that matches r.input) and
// returns its index and the text typed there.
func (r *rule) inputArea(lines []string) (int, string, bool) {
	if r.input == nil {
		return 0, "", false
	}
	for i := len(lines) - 1; i >= 0; i-- {
		m := r.input.FindStringSubmatch(lines[i])
		if m == nil || (r.boxed && (i == 0 || !isRule(lines[i-1]))) {
			continue
		}
		return i, strings.TrimSpace(m[1]), true
	}
	return 0, "", false
}

// boxRows counts the rows of the input box whose input line is at i, down
// to its closing rule, and reports whether the last is empty; 0 when no
// rule closes it on the screen.
func boxRows(lines []string, i int) (int, bool) {
	for j := i + 1; j < len(lines); j++ {
		// Gemini leaves gaps in its closing rule at times.
		if isRule(strings.ReplaceAll(lines[j], " ", "")) {
			return j - i, strings.TrimSpace(unbox(lines[j-1])) == ""
		}
	}
	return 0, false
}

// isRule reports whether l is a horizontal rule: a row of at least ten
// box-drawing characters and nothing else.
func isRule(l string) bool {
	l = strings.TrimSpace(l)
	n := 0
	for _, c := range l {
		if !strings.ContainsRune("─━▄▀╌-", c) {
			return false
		}
		n++
	}
	return n >= 10
}

// lastPrompt returns the index of the last line of above that shows a
// prompt the agent was given.
func (r *rule) lastPrompt(above []string) (int, bool) {
	if r.prompt == nil {
		return 0, false
	}
	for i := len(above) - 1; i >= 0; i-- {
		if r.prompt.MatchString(above[i]) {
			return i, true
		}
	}
	return 0, false
}

// turnOpen reports whether above (the screen above the input area) shows
// a turn that has not ended: nothing follows the last prompt yet (the
// agent has taken it and not drawn its first reaction: on a loaded
// machine that can take a while), a step line follows it, or, for a row
// with a turnEnd line, that line does not follow it.
func (r *rule) turnOpen(above []string) bool {
	p, ok := r.lastPrompt(above)
	if !ok {
		return false
	}
	after := above[promptEnd(above, p):]
	if len(r.step) > 0 {
		if _, ok := anyLine(after, r.step); ok {
			return true
		}
	}
	if r.turnEnd != nil {
		for _, l := range after {
			if r.turnEnd.MatchString(l) {
				return false
			}
		}
		return true
	}
	for _, l := range after {
		if strings.TrimSpace(l) != "" && !isRule(l) {
			return false
		}
	}
	return true
}

// promptEnd returns the index of the first line after the prompt that
// starts at line p of above: a prompt's further lines are indented.
func promptEnd(above []string, p int) int {
	i := p + 1
	for i < len(above) && strings.HasPrefix(above[i], "  ") && strings.TrimSpace(above[i]) != "" {
		i++
	}
	return i
}

// answer returns the lines from the last prompt shown in above (the
// screen above the input area) to its end, trimmed.
func (r *rule) answer(above []string) string {
	start := 0
	if p, ok := r.lastPrompt(above); ok {
		start = promptEnd(above, p)
	}
	var out []string
	for _, l := range above[start:] {
		if !isRule(l) {
			out = append(out, l)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// boxTop reports whether l is the top of a question's box: a box's top
// border, or a rule that is not a dashed one (which divides the box).
func boxTop(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasPrefix(l, "╭") || (isRule(l) && !strings.HasPrefix(l, "╌"))
}

// unbox trims a line of the borders of the box it is drawn in.
func unbox(l string) string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "│")
	l = strings.TrimSuffix(l, "│")
	return l
}

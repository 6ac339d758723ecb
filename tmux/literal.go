package tmux

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
)

// The door: tmux expands formats ("#{...}", "#S", and "#(...)" shell jobs)
// in many arguments that tmux-mcp means literally: session and window
// names, pane titles, start directories, file paths, option names. Every
// command passes through literalArgs on its way to either transport, which
// looks its arguments up in formatArgs (where tmux expands formats, read
// from the sources of tmux 3.2a to 3.7c) and treats each by its kind
// (kindRules): made literal with Literal, refused, or passed as it is.
// Callers hand the wire the text they mean; no call site escapes.

// Kind is what tmux makes of one string argument.
type Kind uint8

// Argument kinds.
const (
	// Verbatim: tmux takes the argument as it is.
	Verbatim Kind = iota
	// Format: a format tmux-mcp writes as one (-F templates, -f filters,
	// display-message). Passed as it is: expanding it is the point.
	Format
	// Name: a session or window name. Expanded; tmux stores control
	// characters and bytes that are not UTF-8 escaped (or refuses them),
	// so the wire refuses those (see NameRewritten for the rest).
	Name
	// Title: a pane title. Expanded; tmux ignores a title that is not
	// UTF-8, so the wire refuses one.
	Title
	// Path: a start directory or a file. Expanded.
	Path
	// Command: a shell command tmux runs (run-shell, if-shell). Expanded.
	Command
	// TimedCommand: pipe-pane's command, passed through strftime and then
	// expanded.
	TimedCommand
	// OptionName: an option or hook name. Expanded.
	OptionName
	// Number: a count or size that newer versions expand before parsing.
	Number
	// Expanding: a flag that makes tmux expand an argument tmux-mcp means
	// literally (set-option -F, send-keys -F, ...). Refused.
	Expanding
)

// kindRules decides, per kind, what the wire does: check refuses an
// argument (returns why, or ""), escape makes it literal.
var kindRules = map[Kind]struct {
	check  func(string) string
	escape func(string) string
}{
	Verbatim:     {},
	Format:       {},
	Name:         {check: checkName, escape: Literal},
	Title:        {check: checkUTF8, escape: Literal},
	Path:         {escape: Literal},
	Command:      {escape: Literal},
	TimedCommand: {escape: literalTime},
	OptionName:   {escape: Literal},
	Number:       {escape: Literal},
	Expanding:    {check: func(string) string { return "tmux-mcp never asks tmux to expand formats here" }},
}

// cmdArgs describes where one command expands formats.
type cmdArgs struct {
	// flags is the command's getopt template, the union over the tmux
	// versions supported: "x:" takes a value, "x" does not.
	flags string
	// values are the kinds of flag values; flags not listed are Verbatim.
	values map[byte]Kind
	// positional are the kinds of the arguments after the flags; the last
	// one repeats. None: all Verbatim.
	positional []Kind
}

// formatArgs is the table: for each command, the arguments tmux expands
// as formats (format_single, format_expand, args_*_and_expand in tmux
// 3.2a to 3.7c). Arguments not listed reach tmux as they are. Format
// kinds are listed for the record: they pass unchanged.
var formatArgs = map[string]cmdArgs{
	"new-session": {flags: "Ac:dDe:EF:f:n:Ps:t:x:Xy:",
		values: map[byte]Kind{'s': Name, 'n': Name, 'c': Path, 'F': Format}},
	"new-window": {flags: "abc:de:F:kn:PSt:",
		values: map[byte]Kind{'n': Name, 'c': Path, 'F': Format}},
	"split-window": {flags: "bc:de:EfF:hIkl:Lm:p:PR:s:S:t:vx:X:y:Y:Z",
		values: map[byte]Kind{'c': Path, 'F': Format, 'l': Number, 'p': Number}},
	"new-pane": {flags: "bc:de:EfF:hIkl:Lm:p:PR:s:S:t:vx:X:y:Y:Z",
		values: map[byte]Kind{'c': Path, 'F': Format, 'l': Number, 'p': Number}},
	"join-pane":      {flags: "bdfhvp:l:s:t:", values: map[byte]Kind{'l': Number, 'p': Number}},
	"move-pane":      {flags: "bdfhvp:l:s:t:", values: map[byte]Kind{'l': Number, 'p': Number}},
	"break-pane":     {flags: "abdPF:n:s:t:", values: map[byte]Kind{'F': Format}},
	"respawn-pane":   {flags: "c:e:kt:", values: map[byte]Kind{'c': Path}},
	"respawn-window": {flags: "c:e:kt:", values: map[byte]Kind{'c': Path}},
	"attach-session": {flags: "c:dEf:rt:x", values: map[byte]Kind{'c': Path}},
	"rename-session": {flags: "t:", positional: []Kind{Name}},
	"rename-window":  {flags: "t:", positional: []Kind{Name}},
	"select-pane":    {flags: "DdegLlMmP:RT:t:UZ", values: map[byte]Kind{'T': Title}},
	"set-option": {flags: "aFgopqst:uUw",
		values: map[byte]Kind{'F': Expanding}, positional: []Kind{OptionName, Verbatim}},
	"set-window-option": {flags: "aFgoqt:u",
		values: map[byte]Kind{'F': Expanding}, positional: []Kind{OptionName, Verbatim}},
	"set-hook":            {flags: "agpRt:uw", positional: []Kind{OptionName, Verbatim}},
	"show-options":        {flags: "AgHpqst:vw", positional: []Kind{OptionName}},
	"show-window-options": {flags: "gvt:", positional: []Kind{OptionName}},
	"show-hooks":          {flags: "gpt:w", positional: []Kind{OptionName}},
	"set-environment":     {flags: "Fhgrt:u", values: map[byte]Kind{'F': Expanding}},
	"load-buffer":         {flags: "b:t:w", positional: []Kind{Path}},
	"save-buffer":         {flags: "ab:", positional: []Kind{Path}},
	"source-file":         {flags: "t:Fnqv", values: map[byte]Kind{'F': Expanding}},
	"pipe-pane":           {flags: "IOot:", positional: []Kind{TimedCommand}},
	"run-shell":           {flags: "bd:Ct:Es:c:", values: map[byte]Kind{'c': Path}, positional: []Kind{Command}},
	"if-shell":            {flags: "bFt:", positional: []Kind{Command, Verbatim}},
	"send-keys":           {flags: "c:FHKlMN:Rt:X", values: map[byte]Kind{'F': Expanding, 'N': Number}},
	"capture-pane":        {flags: "ab:CeE:FHJLMNpPqS:Tt:", values: map[byte]Kind{'S': Number, 'E': Number}},
	"display-message":     {flags: "aCc:d:lINpt:F:v", values: map[byte]Kind{'F': Format}, positional: []Kind{Format}},
	"server-access":       {flags: "adlrw", positional: []Kind{Name}},
}

// commandAliases maps tmux's command aliases to their commands (those of
// commands in formatArgs).
var commandAliases = map[string]string{
	"new": "new-session", "neww": "new-window", "splitw": "split-window", "newp": "new-pane",
	"joinp": "join-pane", "movep": "move-pane", "breakp": "break-pane", "respawnp": "respawn-pane",
	"respawnw": "respawn-window", "attach": "attach-session", "rename": "rename-session",
	"renamew": "rename-window", "selectp": "select-pane", "set": "set-option", "setw": "set-window-option",
	"show": "show-options", "showw": "show-window-options", "setenv": "set-environment",
	"loadb": "load-buffer", "saveb": "save-buffer", "source": "source-file", "pipep": "pipe-pane",
	"run": "run-shell", "if": "if-shell", "send": "send-keys", "capturep": "capture-pane",
	"display": "display-message",
}

// Literal returns s written so that tmux's format expansion yields s
// itself and runs nothing: a literal "#" is "##" in a format. A run of
// "#" followed by "[" is left as it is: every tmux version copies "#[" and
// "##[" (a style) through unchanged. So "#{pane_id}", "#(cmd)", "#S", "#,"
// and a trailing "#" all stay literal.
func Literal(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		if s[i] != '#' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '#' {
			j++
		}
		run := s[i:j]
		b.WriteString(run)
		if j == len(s) || s[j] != '[' {
			b.WriteString(run)
		}
		i = j
	}
	return b.String()
}

// literalTime is Literal for arguments tmux also passes through strftime
// (pipe-pane's command): "%" is written "%%" as well.
func literalTime(s string) string {
	return Literal(strings.ReplaceAll(s, "%", "%%"))
}

// NameRewritten returns why tmux would store a session or window name
// other than as given, in some version from 3.2a on, or "". tmux escapes
// a name with vis(3): control characters, "\", "$" before a letter, "_"
// or "{", and bytes that are not UTF-8. (Before 3.7 it also turns ":" and
// "." in a session name into "_".) The wire refuses only what tmux never
// reports (control characters, invalid UTF-8): a name read back from tmux
// must pass, to be restored. Callers that must get a name back exactly
// refuse the rest themselves.
func NameRewritten(name string) string {
	if why := checkName(name); why != "" {
		return why
	}
	for i := 0; i < len(name); i++ {
		switch {
		case name[i] == '\\':
			return "tmux would store \\ escaped"
		case name[i] == '$' && i+1 < len(name) && (isLetter(name[i+1]) || name[i+1] == '_' || name[i+1] == '{'):
			return "tmux would store $ before a letter, _ or { escaped"
		}
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// checkName refuses what tmux would not store as given in a name and
// never reports either.
func checkName(s string) string {
	if why := checkUTF8(s); why != "" {
		return why
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return "a name cannot hold control characters (tmux would store them escaped)"
		}
	}
	return ""
}

func checkUTF8(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8 (tmux would not take it as given)"
	}
	return ""
}

// literalArgs checks one command on its way to tmux and returns it with
// every argument tmux would expand made literal. It refuses an argument
// with a NUL byte, an argument its kind
// refuses, a command known to crash the server (checkCommand), and an
// abbreviated command name that could stand for a command in formatArgs
// (tmux accepts unique prefixes; the door needs the full name or alias).
func literalArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, errors.New("tmux: no command")
	}
	for i, a := range args {
		if codec.ValidArg(a) != nil {
			return nil, argRefused(args[0], "argument "+strconv.Itoa(i), "contains a NUL byte: tmux arguments are C strings")
		}
	}
	if err := checkCommand(args); err != nil {
		return nil, err
	}
	name := args[0]
	if full, ok := commandAliases[name]; ok {
		name = full
	}
	spec, ok := formatArgs[name]
	if !ok {
		for full := range formatArgs {
			if strings.HasPrefix(full, name) {
				return nil, argRefused(args[0], "command name", "abbreviated: give "+full+" in full or by its alias")
			}
		}
		return args, nil
	}
	out := slices.Clone(args)
	// set applies kind k to the value of argument i (after prefix, for a
	// flag written with its value: "-cDIR").
	set := func(i int, prefix, value string, k Kind, label string) error {
		rule := kindRules[k]
		if rule.check != nil {
			if why := rule.check(value); why != "" {
				return argRefused(args[0], label, why)
			}
		}
		if rule.escape != nil {
			out[i] = prefix + rule.escape(value)
		}
		return nil
	}
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			label := "-" + string(c)
			k, listed := spec.values[c]
			at := strings.IndexByte(spec.flags, c)
			if at < 0 || at+1 == len(spec.flags) || spec.flags[at+1] != ':' {
				// A flag without a value, or one tmux does not know.
				if listed {
					if err := set(i, "", "", k, label); err != nil {
						return nil, err
					}
				}
				continue
			}
			if j+1 < len(a) {
				if err := set(i, a[:j+1], a[j+1:], k, label); err != nil {
					return nil, err
				}
			} else if i+1 < len(args) {
				i++
				if err := set(i, "", args[i], k, label); err != nil {
					return nil, err
				}
			}
			break
		}
	}
	for n := 0; i < len(args) && len(spec.positional) > 0; i, n = i+1, n+1 {
		k := spec.positional[min(n, len(spec.positional)-1)]
		if err := set(i, "", args[i], k, "argument "+strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// argRefused is the error for an argument the wire will not send. It
// names the argument, never its value.
func argRefused(cmd, which, why string) error {
	return &CommandError{Args: []string{cmd}, ExitCode: -1, Class: ErrInvalidArg,
		Stderr: "refused: " + which + ": " + why}
}

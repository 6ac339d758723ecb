package journal

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// String renders the step for people: old IDs in braces.
func (s Step) String() string {
	parts := make([]string, len(s.Args))
	for i, a := range s.Args {
		switch {
		case a.Ref == "":
			parts[i] = displayArg(a.Text)
		case a.Text == "":
			parts[i] = "{" + a.Ref + "}"
		default:
			parts[i] = "{" + a.Ref + "}" + displayArg(a.Text)
		}
	}
	return strings.Join(parts, " ")
}

// displayArg is one argument as a person reads it: quoted when it is
// empty or holds a space, a quote, a shell character or anything not
// printable (a name or path from the journal may hold escape sequences,
// which must not reach a terminal).
func displayArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$;#") && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	return strconv.Quote(s)
}

func lit(ss ...string) []Arg {
	out := make([]Arg, len(ss))
	for i, s := range ss {
		out[i] = Arg{Text: s}
	}
	return out
}

func ref(id, suffix string) Arg { return Arg{Ref: id, Text: suffix} }

func args(parts ...[]Arg) []Arg { return slices.Concat(parts...) }

func asIs(s string) string { return s }

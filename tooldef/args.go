package tooldef

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Args are a call's arguments after they were checked against the tool's
// input schema: known names only, values of the declared type (coerced
// where harmless: 3 for "3" and back), enums and ranges respected.
type Args map[string]any

// Check validates raw against a tool's input schema: its properties and
// required names (InputSchema).
func Check(props map[string]any, required []string, raw any) (Args, error) {
	p := Args{}
	if raw == nil {
		raw = map[string]any{}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, &ArgError{Msg: "arguments must be a JSON object"}
	}
	var unknown []string
	for k := range m {
		if _, ok := props[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &ArgError{Msg: "unknown argument(s): " + strings.Join(unknown, ", "),
			Hint: "Remove or correct the unrecognized argument(s). Accepted: " + strings.Join(slices.Sorted(maps.Keys(props)), ", ") + "."}
	}
	for _, name := range required {
		if v, ok := m[name]; !ok || v == nil {
			return nil, BadArg(name, "required")
		}
	}
	for name, v := range m {
		if v == nil {
			continue // null means absent
		}
		schema, _ := props[name].(map[string]any)
		cv, err := coerce(name, schema, v)
		if err != nil {
			return nil, err
		}
		p[name] = cv
	}
	return p, nil
}

func coerce(name string, schema map[string]any, v any) (any, error) {
	types := SchemaTypes(schema)
	for _, typ := range types {
		cv, ok := coerceTo(typ, v, len(types) == 1)
		if !ok {
			continue
		}
		if err := checkConstraints(name, schema, cv); err != nil {
			return nil, err
		}
		return cv, nil
	}
	return nil, BadArg(name, "want %s, got %s", strings.Join(types, " or "), JSONType(v))
}

func SchemaTypes(schema map[string]any) []string {
	switch t := schema["type"].(type) {
	case string:
		return []string{t}
	case []string:
		return t
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return []string{"string"}
}

// coerceTo converts v to typ. lenient allows the harmless conversions
// (3 for "3" and back, "true" for true); it is off for properties that
// accept several types, where the type itself carries meaning.
func coerceTo(typ string, v any, lenient bool) (any, bool) {
	switch typ {
	case "string":
		switch x := v.(type) {
		case string:
			return x, true
		case float64:
			if lenient && x == math.Trunc(x) {
				return strconv.FormatInt(int64(x), 10), true
			}
		}
	case "integer":
		switch x := v.(type) {
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int(x), true
			}
		case int:
			return x, true
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(x)); lenient && err == nil {
				return n, true
			}
		}
	case "number":
		switch x := v.(type) {
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x, true
			}
		case int:
			return float64(x), true
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); lenient && err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, true
			}
		}
	case "boolean":
		switch x := v.(type) {
		case bool:
			return x, true
		case string:
			if b, err := strconv.ParseBool(x); lenient && err == nil {
				return b, true
			}
		}
	case "object":
		switch x := v.(type) {
		case map[string]any:
			return x, true
		case string:
			// An object may also come as its JSON text (some clients,
			// Cursor's composer among them, send only strings); the
			// schema declares one type, and Args.Object decodes it.
			if lenient {
				return x, true
			}
		}
	case "array":
		if x, ok := v.([]any); ok {
			return x, true
		}
	}
	return nil, false
}

func checkConstraints(name string, schema map[string]any, v any) error {
	if enum := SchemaTypes(map[string]any{"type": schema["enum"]}); schema["enum"] != nil {
		if s, isStr := v.(string); isStr && !slices.Contains(enum, s) {
			return BadArg(name, "want one of %s", strings.Join(enum, ", "))
		}
	}
	if n, ok := toFloat(v); ok {
		lo, hasLo := toFloat(schema["minimum"])
		hi, hasHi := toFloat(schema["maximum"])
		if hasLo && n < lo || hasHi && n > hi {
			switch {
			case hasLo && hasHi:
				return BadArg(name, "out of range: want %g to %g", lo, hi)
			case hasLo:
				return BadArg(name, "out of range: want at least %g", lo)
			default:
				return BadArg(name, "out of range: want at most %g", hi)
			}
		}
	}
	// Arrays are checked against their items' type; handlers check what
	// is inside arrays of objects.
	if items, ok := v.([]any); ok && len(SchemaTypes(mapOf(schema["items"]))) == 1 {
		want := SchemaTypes(mapOf(schema["items"]))[0]
		for i, it := range items {
			if JSONType(it) != want {
				return BadArg(name, "want an array of %ss; item %d is of type %s", want, i, JSONType(it))
			}
		}
	}
	return nil
}

// mapOf returns v as a schema map (nil if it is none).
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// JSONType names v's JSON type.
func JSONType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, int:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (p Args) Str(name string) string {
	s, _ := p[name].(string)
	return s
}

func (p Args) Int(name string) (int, bool) {
	n, ok := p[name].(int)
	return n, ok
}

// Flag returns a boolean argument, or def when it is absent.
func (p Args) Flag(name string, def bool) bool {
	if b, ok := p[name].(bool); ok {
		return b
	}
	return def
}

func (p Args) Number(name string) (float64, bool) {
	f, ok := p[name].(float64)
	return f, ok
}

func (p Args) Bool(name string) bool {
	b, _ := p[name].(bool)
	return b
}

func (p Args) Strings(name string) []string {
	items, _ := p[name].([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.(string))
	}
	return out
}

// Object returns an object argument that may also arrive as a JSON string
// (a workaround some clients need; the schema says "object" only, see
// coerceTo), with values as strings. Values are
// never echoed in errors.
func (p Args) Object(name string) (map[string]string, error) {
	v, ok := p[name]
	if !ok {
		return nil, nil
	}
	if s, isStr := v.(string); isStr {
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		var decoded any
		if err := json.Unmarshal([]byte(s), &decoded); err != nil {
			return nil, &ArgError{Msg: fmt.Sprintf("Invalid %s JSON: %v", name, jsonErr(err))}
		}
		m, ok := decoded.(map[string]any)
		if !ok {
			return nil, &ArgError{Msg: fmt.Sprintf("%s must be a JSON object, got %s", name, pyType(decoded))}
		}
		v = m
	}
	m := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		switch x := x.(type) {
		case string:
			out[k] = x
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			out[k] = strconv.FormatBool(x)
		case []any:
			parts := make([]string, 0, len(x))
			for _, e := range x {
				parts = append(parts, fmt.Sprint(e))
			}
			out[k] = strings.Join(parts, ",")
		default:
			return nil, BadArg(name, "value of key %q: want a string, got %s", k, JSONType(x))
		}
	}
	return out, nil
}

// jsonErr describes a JSON syntax error by position only, so no part of
// the (possibly secret) input is echoed.
func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	return "not valid JSON"
}

// pyType names a decoded JSON value the way libtmux-mcp's messages do.
func pyType(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case bool:
		return "bool"
	case float64:
		if x == math.Trunc(x) {
			return "int"
		}
		return "float"
	case []any:
		return "list"
	}
	return "dict"
}

// Positive returns an integer argument that must be at least 1, or
// def when it is absent.
func Positive(p Args, name string, def int) (int, error) {
	n, ok := p.Int(name)
	switch {
	case !ok:
		return def, nil
	case n < 1:
		return 0, BadArg(name, "must be at least 1")
	}
	return n, nil
}

package tooldef

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// filterOps are libtmux's QueryList lookups, in its order.
var filterOps = []string{"eq", "exact", "iexact", "contains", "icontains", "startswith", "istartswith",
	"endswith", "iendswith", "in", "nin", "regex", "iregex"}

// filter is one parsed `field__op: value` condition.
type filter struct {
	field, op, value string
	re               *regexp.Regexp
	set              []string
}

// parseFilters parses the filters argument ({"field__op": "value"}) for
// items whose fields are valid.
func parseFilters(raw map[string]string, valid []string) ([]filter, error) {
	keys := slices.Sorted(maps.Keys(raw))
	out := make([]filter, 0, len(keys))
	for _, key := range keys {
		field, op := key, "exact"
		if i := strings.LastIndex(key, "__"); i >= 0 {
			field, op = key[:i], key[i+2:]
			if !slices.Contains(filterOps, op) {
				return nil, &ArgError{Msg: fmt.Sprintf("Invalid filter operator '%s' in '%s'. Valid operators: %s",
					op, key, strings.Join(filterOps, ", "))}
			}
		}
		if !slices.Contains(valid, field) {
			return nil, &ArgError{Msg: fmt.Sprintf("Invalid filter field '%s' in '%s'. Valid fields: %s",
				field, key, strings.Join(valid, ", "))}
		}
		f := filter{field: field, op: op, value: raw[key]}
		switch op {
		case "regex", "iregex":
			expr := f.value
			if op == "iregex" {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, &ArgError{Msg: "Invalid regex pattern: " + err.Error()}
			}
			f.re = re
		case "in", "nin":
			f.set = splitSet(f.value)
		}
		out = append(out, f)
	}
	return out, nil
}

// splitSet reads the value of an in/nin filter: a JSON array of strings,
// or a comma-separated list.
func splitSet(v string) []string {
	var arr []string
	if err := json.Unmarshal([]byte(v), &arr); err == nil {
		return arr
	}
	parts := strings.Split(v, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func (f filter) match(data string) bool {
	v := f.value
	switch f.op {
	case "eq", "exact":
		return data == v
	case "iexact":
		return strings.EqualFold(data, v)
	case "contains":
		return strings.Contains(data, v)
	case "icontains":
		return strings.Contains(strings.ToLower(data), strings.ToLower(v))
	case "startswith":
		return strings.HasPrefix(data, v)
	case "istartswith":
		return strings.HasPrefix(strings.ToLower(data), strings.ToLower(v))
	case "endswith":
		return strings.HasSuffix(data, v)
	case "iendswith":
		return strings.HasSuffix(strings.ToLower(data), strings.ToLower(v))
	case "in":
		return slices.Contains(f.set, data)
	case "nin":
		return !slices.Contains(f.set, data)
	case "regex", "iregex":
		return f.re.MatchString(data)
	}
	return false
}

// ApplyFilters keeps the items whose fields match every filter. Fields are
// compared in their string form ("1" for 1, "true" for true, "" for null).
func ApplyFilters[T any](items []T, raw map[string]string) ([]T, error) {
	if len(raw) == 0 {
		return items, nil
	}
	var zero T
	valid := slices.Sorted(maps.Keys(fieldStrings(zero)))
	fs, err := parseFilters(raw, valid)
	if err != nil {
		return nil, err
	}
	out := items[:0:0]
	for _, it := range items {
		fields := fieldStrings(it)
		ok := true
		for _, f := range fs {
			if !f.match(fields[f.field]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, it)
		}
	}
	return out, nil
}

// fieldStrings returns an item's JSON fields as strings.
func fieldStrings(v any) map[string]string {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	out := make(map[string]string, len(m))
	for k, x := range m {
		switch x := x.(type) {
		case nil:
			out[k] = ""
		case string:
			out[k] = x
		case bool:
			out[k] = strconv.FormatBool(x)
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}

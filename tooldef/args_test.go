package tooldef

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// props is an input schema with one property of each kind Check reads.
var props = map[string]any{
	"name":    map[string]any{"type": "string"},
	"lines":   map[string]any{"type": "integer", "minimum": 1.0, "maximum": 100.0},
	"ratio":   map[string]any{"type": "number"},
	"enter":   map[string]any{"type": "boolean"},
	"env":     map[string]any{"type": "object"},
	"keys":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	"mode":    map[string]any{"type": "string", "enum": []any{"a", "b"}},
	"either":  map[string]any{"type": []any{"string", "boolean"}},
	"timeout": map[string]any{"type": "number", "minimum": 0.0},
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		raw      any
		required []string
		want     Args
		wantErr  string // a part of the error; "" for none
	}{
		{"absent is empty", nil, nil, Args{}, ""},
		{"null means absent", map[string]any{"name": nil}, nil, Args{}, ""},
		{"a string", map[string]any{"name": "x"}, nil, Args{"name": "x"}, ""},
		{"an integer from a float", map[string]any{"lines": 3.0}, nil, Args{"lines": 3}, ""},
		{"an integer from its text", map[string]any{"lines": " 7 "}, nil, Args{"lines": 7}, ""},
		{"a string from a whole number", map[string]any{"name": 5.0}, nil, Args{"name": "5"}, ""},
		{"a boolean from its text", map[string]any{"enter": "true"}, nil, Args{"enter": true}, ""},
		{"an object from its JSON text", map[string]any{"env": `{"A":"1"}`}, nil, Args{"env": `{"A":"1"}`}, ""},
		{"a union takes no lenient form", map[string]any{"either": true}, nil, Args{"either": true}, ""},
		{"a union refuses a number", map[string]any{"either": 1.0}, nil, nil, "argument either: want string or boolean, got number"},
		{"not an object", []any{}, nil, nil, "arguments must be a JSON object"},
		{"an unknown name", map[string]any{"nmae": "x"}, nil, nil, "unknown argument(s): nmae"},
		{"a missing required one", map[string]any{}, []string{"name"}, nil, "argument name: required"},
		{"a fraction for an integer", map[string]any{"lines": 2.5}, nil, nil, "argument lines: want integer, got number"},
		{"below the minimum", map[string]any{"lines": 0.0}, nil, nil, "argument lines: out of range: want 1 to 100"},
		{"above the maximum", map[string]any{"lines": 101.0}, nil, nil, "out of range: want 1 to 100"},
		{"below a lone minimum", map[string]any{"timeout": -1.0}, nil, nil, "out of range: want at least 0"},
		{"not in the enum", map[string]any{"mode": "c"}, nil, nil, "argument mode: want one of a, b"},
		{"an array item of another type", map[string]any{"keys": []any{"a", 1.0}}, nil, nil, "item 1 is of type number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(props, tt.required, tt.raw)
			if tt.wantErr != "" {
				var ae *ArgError
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Check() error = %v, want an ArgError with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check() error = %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Check() = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestUnknownArgumentHint: the hint lists what is accepted, sorted.
func TestUnknownArgumentHint(t *testing.T) {
	_, err := Check(map[string]any{"b": map[string]any{}, "a": map[string]any{}}, nil, map[string]any{"c": "x"})
	var ae *ArgError
	if !errors.As(err, &ae) {
		t.Fatalf("Check() error = %v, want an ArgError", err)
	}
	if got, want := ae.Hint, "Remove or correct the unrecognized argument(s). Accepted: a, b."; got != want {
		t.Errorf("hint = %q, want %q", got, want)
	}
}

func TestObject(t *testing.T) {
	tests := []struct {
		name    string
		arg     any
		want    map[string]string
		wantErr string
	}{
		{"an object", map[string]any{"A": "1", "N": 2.0, "B": true, "L": []any{"x", "y"}}, map[string]string{"A": "1", "N": "2", "B": "true", "L": "x,y"}, ""},
		{"its JSON text", `{"A":"1"}`, map[string]string{"A": "1"}, ""},
		{"blank text is none", "  ", nil, ""},
		{"bad JSON says where, not what", `{"SECRET":`, nil, "Invalid env JSON: syntax error at byte"},
		{"JSON of another kind", `[1]`, nil, "env must be a JSON object, got list"},
		{"a nested object", map[string]any{"A": map[string]any{}}, nil, `value of key "A": want a string, got object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Args{"env": tt.arg}.Object("env")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "SECRET") {
					t.Fatalf("Object() error = %v, want one with %q and no value", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Object() = %v, %v, want %v", got, err, tt.want)
			}
		})
	}
}

func TestPositive(t *testing.T) {
	tests := []struct {
		args    Args
		want    int
		wantErr bool
	}{
		{Args{}, 9, false},
		{Args{"n": 3}, 3, false},
		{Args{"n": 0}, 0, true},
	}
	for _, tt := range tests {
		got, err := Positive(tt.args, "n", 9)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Positive(%v) = %d, %v, want %d (error %v)", tt.args, got, err, tt.want, tt.wantErr)
		}
	}
}

package tooldef

import (
	"errors"
	"maps"
	"testing"
)

// TestParseListArgs pins the one limit rule of every listing: absent is
// the listing's default, below 1 is an argument error (never "no limit").
func TestParseListArgs(t *testing.T) {
	for _, c := range []struct {
		name    string
		p       Args
		def     int
		limit   int
		filters map[string]string
		err     string
	}{
		{name: "default", p: Args{}, def: 100, limit: 100},
		{name: "no limit parameter", p: Args{}, def: 0, limit: 0},
		{name: "given", p: Args{"limit": 7}, def: 100, limit: 7},
		{name: "zero", p: Args{"limit": 0}, def: 50, err: "argument limit: must be at least 1"},
		{name: "negative", p: Args{"limit": -3}, def: 20, err: "argument limit: must be at least 1"},
		{name: "filters", p: Args{"filters": map[string]any{"name__contains": "x"}}, def: 100, limit: 100,
			filters: map[string]string{"name__contains": "x"}},
		{name: "filters as JSON text", p: Args{"filters": `{"name": "x"}`}, def: 100, limit: 100,
			filters: map[string]string{"name": "x"}},
		{name: "bad filters", p: Args{"filters": "[1]"}, def: 100, err: "filters must be a JSON object, got list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseListArgs(c.p, c.def)
			if c.err != "" {
				var ae *ArgError
				if !errors.As(err, &ae) || ae.Msg != c.err {
					t.Fatalf("err = %v, want argument error %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Limit != c.limit || !maps.Equal(a.Filters, c.filters) {
				t.Errorf("got limit %d filters %v, want %d %v", a.Limit, a.Filters, c.limit, c.filters)
			}
		})
	}
}

package tools

import (
	"maps"
	"testing"
)

// TestParseListArgs pins the one limit rule of every listing: absent is
// the listing's default, below 1 is an argument error (never "no limit").
func TestParseListArgs(t *testing.T) {
	for _, c := range []struct {
		name    string
		p       params
		def     int
		limit   int
		filters map[string]string
		err     string
	}{
		{name: "default", p: params{}, def: 100, limit: 100},
		{name: "no limit parameter", p: params{}, def: 0, limit: 0},
		{name: "given", p: params{"limit": 7}, def: 100, limit: 7},
		{name: "zero", p: params{"limit": 0}, def: 50, err: "argument limit: must be at least 1"},
		{name: "negative", p: params{"limit": -3}, def: 20, err: "argument limit: must be at least 1"},
		{name: "filters", p: params{"filters": map[string]any{"name__contains": "x"}}, def: 100, limit: 100,
			filters: map[string]string{"name__contains": "x"}},
		{name: "filters as JSON text", p: params{"filters": `{"name": "x"}`}, def: 100, limit: 100,
			filters: map[string]string{"name": "x"}},
		{name: "bad filters", p: params{"filters": "[1]"}, def: 100, err: "filters must be a JSON object, got list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := parseListArgs(c.p, c.def)
			if c.err != "" {
				te := asToolError(err)
				if te == nil || te.msg != c.err || te.class != "argument" {
					t.Fatalf("err = %v, want argument error %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.limit != c.limit || !maps.Equal(a.filters, c.filters) {
				t.Errorf("got limit %d filters %v, want %d %v", a.limit, a.filters, c.limit, c.filters)
			}
		})
	}
}

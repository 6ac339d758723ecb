package tooldef

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// item is a listed item as the listings give them: JSON fields.
type item struct {
	Name   string `json:"name"`
	Count  int    `json:"count"`
	Active bool   `json:"active"`
}

func TestApplyFilters(t *testing.T) {
	items := []item{{"alpha", 1, true}, {"Beta", 2, false}, {"gamma", 10, true}}
	names := func(its []item) []string {
		var out []string
		for _, it := range its {
			out = append(out, it.Name)
		}
		return out
	}
	tests := []struct {
		filters map[string]string
		want    []string
		wantErr string
	}{
		{nil, []string{"alpha", "Beta", "gamma"}, ""},
		{map[string]string{"name": "alpha"}, []string{"alpha"}, ""},
		{map[string]string{"name__iexact": "beta"}, []string{"Beta"}, ""},
		{map[string]string{"name__contains": "a"}, []string{"alpha", "Beta", "gamma"}, ""},
		{map[string]string{"name__startswith": "b"}, nil, ""},
		{map[string]string{"name__istartswith": "b"}, []string{"Beta"}, ""},
		{map[string]string{"count": "10"}, []string{"gamma"}, ""},
		{map[string]string{"active": "true", "name__endswith": "a"}, []string{"alpha", "gamma"}, ""},
		{map[string]string{"name__in": `["alpha", "gamma"]`}, []string{"alpha", "gamma"}, ""},
		{map[string]string{"name__nin": `["alpha"]`}, []string{"Beta", "gamma"}, ""},
		{map[string]string{"name__iregex": "^(A|g)"}, []string{"alpha", "gamma"}, ""},
		{map[string]string{"name__like": "a"}, nil, "Invalid filter operator 'like' in 'name__like'"},
		{map[string]string{"size": "1"}, nil, "Invalid filter field 'size' in 'size'. Valid fields: active, count, name"},
		{map[string]string{"name__regex": "("}, nil, "Invalid regex pattern"},
	}
	for _, tt := range tests {
		got, err := ApplyFilters(items, tt.filters)
		if tt.wantErr != "" {
			var ae *ArgError
			if !errors.As(err, &ae) || !strings.Contains(ae.Msg, tt.wantErr) {
				t.Errorf("ApplyFilters(%v) error = %v, want an ArgError with %q", tt.filters, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(names(got), tt.want) {
			t.Errorf("ApplyFilters(%v) = %v, %v, want %v", tt.filters, names(got), err, tt.want)
		}
	}
}

func TestPaginate(t *testing.T) {
	items := []item{{"a", 1, true}, {"b", 2, true}, {"c", 3, false}, {"d", 4, true}}
	tests := []struct {
		name       string
		filters    map[string]string
		limit      int
		newestLast bool
		want       string
		matched    int
		leftOut    int
	}{
		{"no limit", nil, 0, false, "abcd", 4, 0},
		{"the first", nil, 2, false, "ab", 4, 2},
		{"the newest of a log", nil, 2, true, "cd", 4, 2},
		{"filtered, then cut", map[string]string{"active": "true"}, 2, false, "ab", 3, 1},
		{"none matched", map[string]string{"name": "z"}, 2, false, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Paginate(items, tt.filters, tt.limit, tt.newestLast)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, it := range p.Items {
				got.WriteString(it.Name)
			}
			if got.String() != tt.want || p.Matched != tt.matched || p.LeftOut != tt.leftOut || p.Items == nil {
				t.Errorf("Paginate() = %q matched %d left out %d (nil %t), want %q %d %d",
					got.String(), p.Matched, p.LeftOut, p.Items == nil, tt.want, tt.matched, tt.leftOut)
			}
		})
	}
}

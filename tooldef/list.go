package tooldef

// The arguments every listing takes (tools/listing.go): filters and a limit,
// read here once so that every listing applies one rule. A limit is at
// least 1; a smaller one is refused with the same argument error
// everywhere, never read as "no limit".

// ListArgs are a listing's filters and limit.
type ListArgs struct {
	Filters map[string]string
	Limit   int
}

// ParseListArgs reads a listing's filters and limit; def is the limit
// when the call gives none (0 for a listing without a limit parameter:
// no limit).
func ParseListArgs(p Args, def int) (ListArgs, error) {
	filters, err := p.Object("filters")
	if err != nil {
		return ListArgs{}, err
	}
	limit, err := Limit(p, def)
	if err != nil {
		return ListArgs{}, err
	}
	return ListArgs{Filters: filters, Limit: limit}, nil
}

// Limit reads a limit: def when absent, else at least 1.
func Limit(p Args, def int) (int, error) {
	return Positive(p, "limit", def)
}

// Page keeps the first limit items (the last when newestLast: the
// newest of a log) and counts what matched and what was left out.
type Page[T any] struct {
	Items   []T
	Matched int
	LeftOut int
}

// Paginate filters items and cuts them to limit (0: no limit).
func Paginate[T any](items []T, filters map[string]string, limit int, newestLast bool) (Page[T], error) {
	items, err := ApplyFilters(items, filters)
	if err != nil {
		return Page[T]{}, err
	}
	p := Page[T]{Items: items, Matched: len(items)}
	if limit > 0 && len(items) > limit {
		p.LeftOut = len(items) - limit
		if newestLast {
			p.Items = items[p.LeftOut:]
		} else {
			p.Items = items[:limit]
		}
	}
	if p.Items == nil {
		p.Items = []T{}
	}
	return p, nil
}

package diagnostics

import (
	"fmt"
	"sort"
	"time"
)

// roundDuration rounds d for people: milliseconds under a second, tenths
// under a minute, seconds above.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < 0:
		return -roundDuration(-d)
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// humanBytes prints a byte count in binary units.
func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// percent prints used/limit as a percentage.
func percent(used, limit uint64) string {
	if limit == 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(used)/float64(limit))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

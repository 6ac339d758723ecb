package tools

import (
	"fmt"
	"strconv"
	"strings"
)

// Tier is a safety tier. Tools above the tier in force are neither listed
// nor callable.
type Tier int

// Tiers, in increasing order of what they allow.
const (
	Readonly Tier = iota
	Mutating
	Destructive
)

// Tiers lists every tier in order.
var tierNames = []string{"readonly", "mutating", "destructive"}

func (t Tier) String() string {
	if t < 0 || int(t) >= len(tierNames) {
		return "tier(" + strconv.Itoa(int(t)) + ")"
	}
	return tierNames[t]
}

// ParseTier parses "readonly", "mutating" or "destructive". On any other
// value it returns Readonly and an error: the caller warns and carries on
// with the safest tier.
func ParseTier(s string) (Tier, error) {
	for i, n := range tierNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Tier(i), nil
		}
	}
	return Readonly, fmt.Errorf("tools: unknown safety tier %q (want %s); using readonly", s, strings.Join(tierNames, ", "))
}

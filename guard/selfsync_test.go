package guard

import "testing"

// TestSyncOption: synchronize-panes as tmux reads an option name, any
// unique prefix of two letters or more, an array index ignored.
func TestSyncOption(t *testing.T) {
	for name, want := range map[string]bool{
		"synchronize-panes": true, "sync": true, "sy": true, "synchronize-panes[0]": true,
		"s": false, "status": false, "synchronize-panes-x": false, "": false,
	} {
		if got := SyncOption(name); got != want {
			t.Errorf("SyncOption(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTurnsOn: every value but off, no and 0 turns a flag on (an empty
// value toggles it).
func TestTurnsOn(t *testing.T) {
	for value, want := range map[string]bool{
		"on": true, "yes": true, "1": true, "": true, "ON": true,
		"off": false, " Off ": false, "no": false, "0": false,
	} {
		if got := TurnsOn(value); got != want {
			t.Errorf("TurnsOn(%q) = %v, want %v", value, got, want)
		}
	}
}

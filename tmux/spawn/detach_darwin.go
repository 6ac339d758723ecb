package spawn

// userScopeArgv is nil on macOS: launchd ends no process at the end of a
// login session; setsid is enough.
func userScopeArgv([]string) []string { return nil }

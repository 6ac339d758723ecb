package death

// Cause classifies why a server died or became unreachable.
type Cause string

// Causes.
const (
	CauseLastSession   Cause = "last_session_gone" // exit-empty: the last session closed
	CauseKilled        Cause = "killed"            // ended by a signal (SIGKILL, SIGTERM, OOM killer)
	CauseCrashed       Cause = "crashed"           // SIGSEGV/SIGABRT or fatal() exit status
	CauseSocketDeleted Cause = "socket_deleted"    // socket file gone, server alive
	CauseFDLivelock    Cause = "fd_livelock"       // near its fd limit and not answering
	CauseHung          Cause = "hung"              // alive, not answering (SIGSTOP, blocked write)
	CauseVersionSkew   Cause = "version_skew"      // client and server binaries differ
	CausePermission    Cause = "permission"        // socket directory or ACL problem
	CauseKillServer    Cause = "kill_server"       // tmux-mcp was asked to kill it
	CauseUnknown       Cause = "unknown"
)

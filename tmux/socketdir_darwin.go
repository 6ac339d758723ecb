package tmux

// systemTmpDir is where tmux's _PATH_TMP (/tmp) leads on macOS: /tmp is a
// symlink to /private/tmp, and tmux resolves it, so its sockets live in
// /private/tmp/tmux-UID (the path in its error messages).
const systemTmpDir = "/private/tmp"

// sunPathLen is the size of sockaddr_un's sun_path on macOS: a socket
// path holds at most 103 bytes and the terminating NUL.
const sunPathLen = 104

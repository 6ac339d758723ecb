package tmux

// systemTmpDir is tmux's _PATH_TMP on Linux.
const systemTmpDir = "/tmp"

// sunPathLen is the size of sockaddr_un's sun_path on Linux: a socket
// path holds at most 107 bytes and the terminating NUL.
const sunPathLen = 108

// Package codec is the text of the wire: how tmux-mcp writes a command
// line that tmux parses back into exactly its arguments, and how it reads
// what tmux prints, whatever the version. It is pure: no I/O beyond a
// reader it is given, no tmux.
//
//   - quote.go: [Quote] writes an argv as one control-mode command line
//     (tmux's cmd-parse.y rules); [ValidArg] and [ValidCommandName] say
//     what cannot be sent.
//   - controlparse.go: [Parser] splits a control client's stdout into
//     %begin/%end blocks, notification lines and %exit.
//   - record.go: [RecordFormat] and [ParseRecords] read several format
//     variables in one command, each value quoted by tmux (#{q:}) so that
//     no byte of it can split or join records.
//   - environ.go: [ParseEnvironment] reads show-environment -s.
//   - unescape.go: [UnescapeBuffer], [UnescapeStored] and
//     [UnescapeOutput] undo the escaping of show-buffer, of stored names
//     and titles, and of %output.
//
// Where to start: record.go's opening comment explains why values read
// back from tmux need all this; quote.go's lists the quoting rules.
//
// It imports nothing of tmux-mcp; package tmux (the wire) imports it and
// forwards the codecs its users read output with (tmux.RecordFormat,
// tmux.ParseRecords, tmux.ParseEnvironment, tmux.UnescapeStored, ...).
// Notifications are parsed by tmux.ParseNotification, which needs the
// wire's IDs. Tests that check a codec against a live server live in
// package tmux (quote_roundtrip_test.go, showbuffer_test.go).
package codec

package capture

import "unicode/utf8"

// The tails of text that results keep: the last lines of a command's
// output or of a pane's rows, capped by lines and bytes. Plan and
// TruncateTail cap a capture's bytes; these cap lines already split.

// TailLines keeps the last n lines; dropped adds to the count already
// known lost.
func TailLines(lines []string, n, dropped int) ([]string, int) {
	if lines == nil {
		lines = []string{}
	}
	if len(lines) <= n {
		return lines, dropped
	}
	return lines[len(lines)-n:], dropped + len(lines) - n
}

// CapTail keeps the last maxLines lines, and of those the last maxBytes
// bytes (lines joined by newlines; a line longer than that keeps its
// tail).
func CapTail(lines []string, maxLines, maxBytes int) (kept []string, droppedLines, droppedBytes int) {
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	kept = lines
	if len(kept) > maxLines {
		kept = kept[len(kept)-maxLines:]
	}
	size := 0
	i := len(kept)
	for i > 0 && size+len(kept[i-1])+boolInt(size > 0) <= maxBytes {
		size += len(kept[i-1]) + boolInt(size > 0)
		i--
	}
	if i > 0 && i == len(kept) {
		// Not even the last line fits: keep its tail.
		last := kept[len(kept)-1]
		cut := len(last) - maxBytes
		for cut < len(last) && !utf8.RuneStart(last[cut]) {
			cut++
		}
		kept = []string{last[cut:]}
	} else {
		kept = kept[i:]
	}
	keptSize := 0
	for _, l := range kept {
		keptSize += len(l) + 1
	}
	return kept, len(lines) - len(kept), total - keptSize
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

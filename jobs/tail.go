package jobs

import "unicode/utf8"

// tailLines keeps the last n lines; dropped adds to the count already
// known lost. (run_command's rule, as tools applies it.)
func tailLines(lines []string, n, dropped int) ([]string, int) {
	if lines == nil {
		lines = []string{}
	}
	if len(lines) <= n {
		return lines, dropped
	}
	return lines[len(lines)-n:], dropped + len(lines) - n
}

// capTail keeps the last maxLines lines, and of those the last maxBytes
// bytes (lines joined by newlines; a line longer than that keeps its
// tail). It reports the lines dropped, whole or in part. (The rule of
// the tools' capped tails, for the tail a Record keeps.)
func capTail(lines []string, maxLines, maxBytes int) (kept []string, droppedLines int) {
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
	return kept, len(lines) - len(kept)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

//go:build !linux

package agent

import "fmt"

// ConversationOf reads the conversation p writes to. Only Linux is
// supported: it reads /proc.
func ConversationOf(name Name, p Process, below []Process) (Conversation, error) {
	if !Resumable(name) {
		return Conversation{}, ErrNotResumable
	}
	return Conversation{}, fmt.Errorf("agent: finding %s's conversation from its process needs Linux's /proc: %w", name, ErrNotResumable)
}

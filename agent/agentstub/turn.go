package agentstub

import "time"

// IdleText is a line the CLI name shows while its input box is empty and
// waits for a prompt; "" for a CLI the tests do not type into.
func IdleText(name string) string {
	switch name {
	case Claude:
		return "? for shortcuts"
	case Codex:
		return "Ask Codex to do anything"
	}
	return ""
}

// Turn types prompt into the CLI name of p once its input box is idle
// (its idle line shown and the screen still for a second), sends it, and
// waits until s has received it as its n-th prompt and its reply is on
// the screen.
func (p *Pane) Turn(s *Stub, name, prompt string, n int) {
	p.t.Helper()
	p.WaitText(IdleText(name), 60*time.Second)
	p.WaitStill("idle", time.Second, 60*time.Second)
	p.Paste(prompt)
	p.WaitText(prompt, 10*time.Second)
	p.Keys("Enter")
	s.WaitPrompt(p.t, n, 30*time.Second)
	p.WaitText(DefaultText(prompt), 30*time.Second)
}

package taskext

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ask parks t as input_required with requests (the handler's keys) and
// waits until every one is answered or ctx ends; it returns the answers
// by the handler's keys.
func (m *Manager) ask(ctx context.Context, t *task, requests map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	m.mu.Lock()
	if t.snap.Inputs == nil {
		t.snap.Inputs = map[string]json.RawMessage{}
	}
	clear(t.answers)
	for k, req := range requests {
		key := k
		for n := 2; t.issued[key]; n++ {
			key = fmt.Sprintf("%s-%d", k, n)
		}
		t.issued[key] = true
		t.pending[key] = k
		t.snap.Inputs[key] = req
	}
	t.snap.Status, t.snap.Message, t.snap.Updated = InputRequired, "waiting for the client's answer", time.Now()
	m.mu.Unlock()
	m.changed(t)
	for {
		m.mu.Lock()
		if len(t.pending) == 0 {
			out := maps(t.answers)
			t.snap.Status, t.snap.Message, t.snap.Updated = Working, "", time.Now()
			m.mu.Unlock()
			m.changed(t)
			return out, nil
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.wake:
		}
	}
}

func maps(in map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// answer takes responses to t's outstanding input requests; responses to
// keys not outstanding are ignored.
func (m *Manager) answer(t *task, responses map[string]json.RawMessage) {
	m.mu.Lock()
	took := false
	for key, resp := range responses {
		orig, ok := t.pending[key]
		if !ok {
			continue
		}
		delete(t.pending, key)
		delete(t.snap.Inputs, key)
		t.answers[orig] = resp
		took = true
	}
	if took {
		t.snap.Updated = time.Now()
	}
	m.mu.Unlock()
	if took {
		select {
		case t.wake <- struct{}{}:
		default:
		}
		m.changed(t)
	}
}

package taskext

// subscriber hears of the changes of some tasks: a subscriptions/listen
// stream.
type subscriber struct {
	ids  map[string]bool
	send func(Snapshot)
}

// subscribe calls send with every change of the tasks ids until the
// returned function is called. send must not block for long.
func (m *Manager) subscribe(ids []string, send func(Snapshot)) (unsubscribe func()) {
	s := &subscriber{ids: map[string]bool{}, send: send}
	for _, id := range ids {
		s.ids[id] = true
	}
	m.mu.Lock()
	m.subs[s] = struct{}{}
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.subs, s)
		m.mu.Unlock()
	}
}

// notify tells the subscribers of s.ID of s.
func (m *Manager) notify(s Snapshot) {
	m.mu.Lock()
	var to []*subscriber
	for sub := range m.subs {
		if sub.ids[s.ID] {
			to = append(to, sub)
		}
	}
	m.mu.Unlock()
	for _, sub := range to {
		sub.send(s)
	}
}

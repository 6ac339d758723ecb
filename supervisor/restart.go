package supervisor

// RestartPolicy: placeholder, being implemented.
type RestartPolicy struct{}

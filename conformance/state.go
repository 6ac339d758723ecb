//go:build conformance

package conformance

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// A requestState is opaque to the client and comes back from it: the
// multi round-trip fixtures keep in it what earlier rounds learned, so
// they must not trust it. sealer signs what it hands out with HMAC-SHA256
// under a key drawn once per process, and opens only what it signed: a
// tampered state (input-required-result-tampered-state) is refused.

// errTampered is the error of a requestState this process did not seal.
var errTampered = errors.New("requestState failed its integrity check: it was not issued by this server or was changed")

type sealer struct{ key []byte }

func newSealer() sealer {
	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
	return sealer{key: key}
}

// seal returns v as a signed requestState: base64url(JSON) "." base64url(MAC).
func (s sealer) seal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the fixtures seal plain structs
	}
	body := base64.RawURLEncoding.EncodeToString(b)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

// open checks the signature of state and decodes it into v.
func (s sealer) open(state string, v any) error {
	body, sig, ok := strings.Cut(state, ".")
	if !ok {
		return errTampered
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(body)) {
		return errTampered
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return errTampered
	}
	return json.Unmarshal(b, v)
}

func (s sealer) mac(body string) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(body))
	return h.Sum(nil)
}

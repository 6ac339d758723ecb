package httpmcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// The view's credential: what the page sends, in its Authorization
// header, on every data request. A browser sends a cookie to every port
// of a host (cookies do not isolate ports), so another local user's page
// on another loopback port would receive one; what a page keeps in its
// storage belongs to its origin, port included, and travels only where
// its own script sends it. So the view signs in with the token once
// (POST /view/login), gets a credential that lasts viewCredentialTTL,
// keeps it in its storage and renews it before it ends (POST
// /view/renew). It is stateless: its end, and a MAC of it under a key
// derived from the token, so it dies with the token (tmux-mcp started
// again with another one) and holds nothing of the token.

// viewCredentialTTL is how long a view credential lasts.
const viewCredentialTTL = 15 * time.Minute

// viewCredentialPrefix starts every view credential, so that one is told
// from the token at a glance.
const viewCredentialPrefix = "tmv1."

// viewCredentials mints and checks the view's credentials of one token.
type viewCredentials struct {
	key []byte
	ttl time.Duration
}

// newViewCredentials derives the credentials' key from token.
func newViewCredentials(token string, ttl time.Duration) viewCredentials {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("tmux-mcp view credential key"))
	return viewCredentials{key: m.Sum(nil), ttl: ttl}
}

// mac is the credential's MAC of its end (Unix seconds).
func (c viewCredentials) mac(end int64) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte("tmux-mcp view credential\x00" + strconv.FormatInt(end, 10)))
	return m.Sum(nil)
}

// mint returns a credential that lasts from now for the TTL, and its end.
func (c viewCredentials) mint(now time.Time) (string, time.Time) {
	end := now.Add(c.ttl).Unix()
	return viewCredentialPrefix + strconv.FormatInt(end, 10) + "." + base64.RawURLEncoding.EncodeToString(c.mac(end)),
		time.Unix(end, 0)
}

// valid reports whether cred is a credential of this key that has not
// ended at now (nor ends later than one minted now would: the clock went
// back, or it was not minted here). The MAC is compared in constant time.
func (c viewCredentials) valid(cred string, now time.Time) bool {
	rest, ok := strings.CutPrefix(cred, viewCredentialPrefix)
	if !ok {
		return false
	}
	endText, macText, ok := strings.Cut(rest, ".")
	if !ok {
		return false
	}
	end, err := strconv.ParseInt(endText, 10, 64)
	if err != nil || strconv.FormatInt(end, 10) != endText {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(macText)
	if err != nil || !hmac.Equal(got, c.mac(end)) {
		return false
	}
	at := time.Unix(end, 0)
	return now.Before(at) && !at.After(now.Add(c.ttl+time.Second))
}

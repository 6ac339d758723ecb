package httpmcp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// DefaultOrigins lets in the pages of this machine only: any port of
// localhost, 127.0.0.1 and [::1], over http or https.
const DefaultOrigins = "localhost:*,127.0.0.1:*,[::1]:*"

// originRule is one entry of --http-origins: [scheme://]host[:port|:*].
type originRule struct {
	schemes []string // http and https when the entry names none
	host    string   // lower case, IPv6 without brackets
	port    string   // "" the scheme's default port, "*" any port
}

// CheckOrigins reports what is wrong with a comma-separated --http-origins
// list (Options.Origins), or nil.
func CheckOrigins(list string) error {
	_, err := parseOrigins(list)
	return err
}

// parseOrigins parses a comma-separated --http-origins list. An empty
// list allows no browser origin at all.
func parseOrigins(list string) ([]originRule, error) {
	var rules []originRule
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		r, err := parseOrigin(entry)
		if err != nil {
			return nil, fmt.Errorf("origin %q: %w", entry, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseOrigin(entry string) (originRule, error) {
	r := originRule{schemes: []string{"http", "https"}}
	rest := entry
	if scheme, after, ok := strings.Cut(entry, "://"); ok {
		if scheme == "" || strings.ContainsAny(scheme, "/:*") {
			return originRule{}, errors.New("want [scheme://]host[:port or :*]")
		}
		r.schemes, rest = []string{strings.ToLower(scheme)}, after
	}
	host, port := rest, ""
	switch {
	case strings.HasPrefix(rest, "["):
		end := strings.Index(rest, "]")
		if end < 0 {
			return originRule{}, errors.New("unclosed [ in an IPv6 address")
		}
		host = rest[1:end]
		if tail := rest[end+1:]; tail != "" {
			p, ok := strings.CutPrefix(tail, ":")
			if !ok {
				return originRule{}, errors.New("want [IPv6]:port")
			}
			port = p
		}
	case strings.Contains(rest, ":"):
		host, port, _ = strings.Cut(rest, ":")
	}
	if host == "" || strings.ContainsAny(host, "/?#@ *[]") {
		return originRule{}, errors.New("want [scheme://]host[:port or :*]")
	}
	if port != "" && port != "*" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return originRule{}, errors.New("port: want 1-65535 or *")
		}
	}
	r.host, r.port = strings.ToLower(host), port
	return r, nil
}

// allowedOrigin reports whether a request's Origin header value is on the list.
// "null" (sandboxed frames, file: pages) and anything that is not a bare
// scheme://host[:port] never is.
func allowedOrigin(rules []originRule, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	port := effectivePort(scheme, u.Port())
	for _, r := range rules {
		if r.host != host || !slices.Contains(r.schemes, scheme) {
			continue
		}
		if r.port == "*" || effectivePort(scheme, r.port) == port {
			return true
		}
	}
	return false
}

// effectivePort is port, or the scheme's default port when it is empty.
func effectivePort(scheme, port string) string {
	if port != "" {
		return port
	}
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// ownOrigin reports whether every Origin header of r names the origin r
// was sent to: an http or https origin whose host and port are the
// request's Host (its port, when Host names none, the origin scheme's
// default: a proxy that ends TLS in front of tmux-mcp passes the Host on).
// Another port of the same host is another origin, another user's page
// perhaps. A request without Origin (a program; a browser's same-origin
// GET) passes. It returns the first Origin refused.
func ownOrigin(r *http.Request) (string, bool) {
	for _, origin := range r.Header.Values("Origin") {
		u, err := url.Parse(origin)
		if err != nil || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return origin, false
		}
		scheme := strings.ToLower(u.Scheme)
		if (scheme != "http" && scheme != "https") || u.Hostname() == "" {
			return origin, false
		}
		host, port, err := net.SplitHostPort(r.Host)
		if err != nil {
			host, port = strings.Trim(r.Host, "[]"), ""
		}
		if !strings.EqualFold(u.Hostname(), host) || effectivePort(scheme, u.Port()) != effectivePort(scheme, port) {
			return origin, false
		}
	}
	return "", true
}

// guardBrowser refuses, with 403 Forbidden, what a web page could send:
// a request whose Origin header is not on the allowlist (the MCP
// specification requires streamable HTTP servers to validate Origin; a
// request without one, from a program rather than a browser, passes),
// and, on a loopback listener, a Host header that does not name a
// loopback host (DNS rebinding: a page whose name resolves to 127.0.0.1).
// It runs before authentication, so a browser learns nothing else.
func guardBrowser(rules []originRule, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil &&
			isLoopbackHost(local.String()) && !isLoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not a loopback name", r.Host), http.StatusForbidden)
			return
		}
		for _, origin := range r.Header.Values("Origin") {
			if !allowedOrigin(rules, origin) {
				http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed (--http-origins)", origin), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackHost reports whether a host or host:port names a loopback
// interface.
func isLoopbackHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

package replay

import (
	"net"
	"net/http"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// hostKey is what a POST's Host and Origin add to its match key: nothing
// for the usual ones, which name the server (fixtures.OwnHost); a foreign
// one (a DNS-rebinding probe) must equal the recorded one, so a recording
// that holds the same request with and without it is told apart by
// header, not by order.
func hostKey(host, origin string) string {
	var b strings.Builder
	if host != "" {
		b.WriteString(" Host=" + strings.ToLower(host))
	}
	if origin != "" {
		b.WriteString(" Origin=" + strings.ToLower(origin))
	}
	return b.String()
}

// recordedHostKey reads the Host and Origin the recorder kept.
func recordedHostKey(h map[string]string) string {
	var host, origin string
	for k, v := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Host":
			host = v
		case "Origin":
			origin = v
		}
	}
	return hostKey(host, origin)
}

// requestHostKey reads the foreign Host and Origin of a live request.
func requestHostKey(req *http.Request) string {
	local, _ := req.Context().Value(http.LocalAddrContextKey).(net.Addr)
	var host, origin string
	if !fixtures.OwnHost(req.Host, local) {
		host = req.Host
	}
	if o := req.Header.Get("Origin"); !fixtures.OwnOrigin(o, local) {
		origin = o
	}
	return hostKey(host, origin)
}

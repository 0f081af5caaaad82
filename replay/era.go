package replay

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// eraKey is the part of a request's match key that tells the eras apart:
// a request of the 2026-07-28 revision (its _meta names its version)
// matches the recorded requests of that revision asking for the same
// version; one of the handshake era ("" version), those of the handshake
// era. A recording that holds both eras (the reference pool's handshake,
// then a client of the revision) serves each client in the era its
// requests ask for, as the live server did.
func eraKey(version string) string {
	if version == "" {
		return ""
	}
	return " @" + version
}

// eraParams is what the era checks read of a request's params.
type eraParams struct {
	Name string                     `json:"name"`
	Meta map[string]json.RawMessage `json:"_meta"`
}

func readEraParams(params json.RawMessage) eraParams {
	var p eraParams
	_ = json.Unmarshal(params, &p)
	return p
}

// modernFault is the probe kind of a request of the 2026-07-28 revision
// whose _meta or headers a live server refuses (in probekind.All
// order), "" when it has none: a version header of the revision without
// _meta, a version the server does not support (versions; server/discover
// excepted: it is how a client learns them), a _meta without the client's
// capabilities, a version header missing or other than the _meta's, an
// Mcp-Method missing or other than the method, a tools/call's Mcp-Name
// missing or other than its tool.
func modernFault(h http.Header, in *incoming, versions map[string]bool) string {
	hv := h.Get("Mcp-Protocol-Version")
	mv := fixtures.MetaVersion(in.Params)
	if !in.isRequest() {
		return ""
	}
	if mv == "" {
		if fixtures.Modern(hv) {
			return probekind.ModernNoMeta
		}
		return ""
	}
	p := readEraParams(in.Params)
	method := h.Get("Mcp-Method")
	switch {
	case !versions[mv] && in.Method != "server/discover":
		return probekind.UnknownVersion
	case p.Meta[fixtures.MetaClientCapabilities] == nil:
		return probekind.IncompleteMeta
	case hv == "":
		return probekind.NoVersionHeader
	case hv != mv:
		return probekind.VersionMismatch
	case method == "":
		return probekind.NoMethodHeader
	case method != in.Method:
		return probekind.MethodMismatch
	case in.Method != "tools/call":
		return ""
	case h.Get("Mcp-Name") == "":
		return probekind.NoNameHeader
	case h.Get("Mcp-Name") != p.Name:
		return probekind.NameMismatch
	}
	return ""
}

// requestEra says in which era a POST is served: the version of the
// revision it asks for ("" for the handshake era), or refused (an answer
// was written). A request with a fault of the revision the server refused
// gets the probe's answer; one it accepted is served in the era its
// version header names (a server may route on the header alone).
func (r *Replay) requestEra(w http.ResponseWriter, req *http.Request, in *incoming) (version string, refused bool) {
	fault := modernFault(req.Header, in, r.ix.versions)
	if fault == "" {
		return fixtures.MetaVersion(in.Params), false
	}
	if pa := r.ix.probes.get(fault); pa != nil {
		if pa.refused {
			r.refuse(w, pa, in.ID)
			return "", true
		}
		if hv := req.Header.Get("Mcp-Protocol-Version"); fixtures.Modern(hv) {
			return hv, false
		}
		return "", false
	}
	return fixtures.MetaVersion(in.Params), false
}

// noEra reports whether a request names no era at all: no _meta version,
// no session id, no version header, and it opens nothing (not initialize,
// not server/discover): a client that skipped both the handshake and
// server/discover.
func noEra(h http.Header, in *incoming) bool {
	return in.isRequest() && in.Method != "initialize" && in.Method != "server/discover" &&
		h.Get("Mcp-Session-Id") == "" && h.Get("Mcp-Protocol-Version") == "" && fixtures.MetaVersion(in.Params) == ""
}

// notificationHeaders judges the headers of a notification over HTTP
// and reports what is wrong: one that names the revision
// (MCP-Protocol-Version) carries Mcp-Method naming it, as a go-sdk server
// of the revision requires, and the cancellation of a request of the
// revision names that request's version, as its request did.
func (r *Replay) notificationHeaders(req *http.Request, in *incoming) bool {
	hv := req.Header.Get("Mcp-Protocol-Version")
	want := ""
	if in.Method == notificationCancelled {
		if v, ok := r.sent.Load(cancelledID(in.Params)); ok {
			want = v.(string)
		}
	}
	problem := ""
	switch {
	case want != "" && hv != want:
		problem = fmt.Sprintf("MCP-Protocol-Version %q, want %q (the version of the request it cancels)", hv, want)
	case !fixtures.Modern(hv):
		return true
	case req.Header.Get("Mcp-Method") != in.Method:
		problem = fmt.Sprintf("Mcp-Method %q, want %q", req.Header.Get("Mcp-Method"), in.Method)
	default:
		return true
	}
	r.e.unmatched(in.Method, "replay: notification "+in.Method+" of the revision: "+problem)
	return false
}

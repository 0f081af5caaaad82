package replay

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// FaultDiscover answers the N-th server/discover (the first by default)
// otherwise than recorded (discover:ANSWER[#N]): a result no recorded
// server gives, or a -32022 error, so that a scenario shows how a client
// of the revision reads it (E2.2, E2.3). The answer is a JSON body over
// HTTP (status 200), a line over stdio; later requests are served as
// recorded.
const FaultDiscover FaultKind = "discover"

// The answers of a discover fault. The results are the recorded one
// (the first recorded server/discover result) with its supportedVersions
// changed.
const (
	// DiscoverNoVersions: a result without supportedVersions.
	DiscoverNoVersions = "no-versions"
	// DiscoverOlder: supportedVersions lists versions of the handshake
	// era only.
	DiscoverOlder = "older"
	// DiscoverReordered: supportedVersions lists 2026-07-28 last.
	DiscoverReordered = "reordered"
	// DiscoverMalformed: supportedVersions holds a number beside
	// 2026-07-28 (a result a client that reads it strictly cannot read).
	DiscoverMalformed = "malformed"
	// DiscoverUnsupported: a JSON-RPC error -32022 whose data.supported
	// lists 2026-07-28 (a client may ask once more with it).
	DiscoverUnsupported = "unsupported"
	// DiscoverUnsupportedOld: a -32022 error whose data.supported lists
	// versions of the handshake era only.
	DiscoverUnsupportedOld = "unsupported-old"
	// DiscoverUnsupportedMixed: a -32022 error whose data.supported lists
	// an older version first, then 2026-07-28.
	DiscoverUnsupportedMixed = "unsupported-mixed"
	// DiscoverUnsupportedNewer: a -32022 error whose data.supported lists
	// a version newer than any the client knows only.
	DiscoverUnsupportedNewer = "unsupported-newer"
	// DiscoverOtherError: another JSON-RPC error (-32602), its
	// data.supported listing 2026-07-28 all the same.
	DiscoverOtherError = "other-error"
	// DiscoverUnsupportedMalformed: a -32022 error whose data.supported
	// holds a number beside 2026-07-28.
	DiscoverUnsupportedMalformed = "unsupported-malformed"
	// DiscoverUnsupported400: the error of DiscoverUnsupported with HTTP
	// status 400, as servers of the revision answer it (over stdio, the
	// same line as DiscoverUnsupported).
	DiscoverUnsupported400 = "unsupported-400"
)

// DiscoverAnswers lists the answers of a discover fault.
var DiscoverAnswers = []string{DiscoverNoVersions, DiscoverOlder, DiscoverReordered, DiscoverMalformed,
	DiscoverUnsupported, DiscoverUnsupportedOld, DiscoverUnsupportedMixed, DiscoverUnsupportedNewer, DiscoverOtherError,
	DiscoverUnsupportedMalformed, DiscoverUnsupported400}

// unsupported is the data.supported of each error answer, and its code.
var unsupported = map[string]struct {
	code      int
	supported []any
}{
	DiscoverUnsupported:          {codeUnsupportedVersion, []any{fixtures.ModernVersion}},
	DiscoverUnsupportedOld:       {codeUnsupportedVersion, []any{"2025-11-25", "2025-06-18"}},
	DiscoverUnsupportedMixed:     {codeUnsupportedVersion, []any{"2025-11-25", fixtures.ModernVersion}},
	DiscoverUnsupportedNewer:     {codeUnsupportedVersion, []any{"2027-01-01"}},
	DiscoverOtherError:           {-32602, []any{fixtures.ModernVersion}},
	DiscoverUnsupportedMalformed: {codeUnsupportedVersion, []any{20260728, fixtures.ModernVersion}},
	DiscoverUnsupported400:       {codeUnsupportedVersion, []any{fixtures.ModernVersion}},
}

// codeUnsupportedVersion is the revision's error for a version the server
// does not support.
const codeUnsupportedVersion = -32022

func parseDiscover(s, rest string) (Fault, error) {
	answer, nth, hasN := strings.Cut(rest, "#")
	if !slices.Contains(DiscoverAnswers, answer) {
		return Fault{}, fmt.Errorf("fault %q: want discover:ANSWER[#N], ANSWER one of %s", s, strings.Join(DiscoverAnswers, ", "))
	}
	f := Fault{Kind: FaultDiscover, Method: "server/discover", N: 1, Answer: answer}
	if hasN {
		if err := f.parseSelector("server/discover#"+nth, true); err != nil {
			return Fault{}, fmt.Errorf("fault %q: %v", s, err)
		}
	}
	return f, nil
}

// discovery is what a recording's server/discover results say: the
// versions they list, and the first of them, the base of a discover
// fault's answer.
type discovery struct {
	// versions are the versions of the 2026-07-28 revision the server
	// lists in its recorded server/discover results.
	versions map[string]bool
	result   json.RawMessage
}

func newDiscovery() discovery { return discovery{versions: map[string]bool{}} }

// add reads a recorded server/discover answer.
func (d *discovery) add(r fixtures.Response) {
	for _, v := range fixtures.SupportedVersions(r) {
		d.versions[v] = true
	}
	if d.result == nil {
		d.result = fixtures.DiscoverResult(r)
	}
}

// status is the HTTP status of a discover fault's answer.
func discoverStatus(kind string) int {
	if kind == DiscoverUnsupported400 {
		return 400
	}
	return 200
}

// answer is a discover fault's JSON-RPC answer to the request id.
func (d *discovery) answer(kind string, id json.RawMessage) []byte {
	if u, ok := unsupported[kind]; ok {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": u.code, "message": "Unsupported protocol version",
			"data": map[string]any{"supported": u.supported, "requested": fixtures.ModernVersion},
		}})
		return b
	}
	result := map[string]any{}
	_ = json.Unmarshal(d.result, &result)
	switch kind {
	case DiscoverNoVersions:
		delete(result, "supportedVersions")
	case DiscoverOlder:
		result["supportedVersions"] = []string{"2025-11-25", "2025-06-18"}
	case DiscoverReordered:
		result["supportedVersions"] = []string{"2025-06-18", "2025-11-25", fixtures.ModernVersion}
	case DiscoverMalformed:
		result["supportedVersions"] = []any{20260728, fixtures.ModernVersion}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	return b
}

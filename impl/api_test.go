package impl

// The HTTP contract over the pool: the sixteen config mutations with the
// bbolt file read after each (C1, C3–C8), connection counts (C7), status of
// four kinds of server (P16), catalog (P17), tools and calls through the
// façade routes (P8, P9, P11–P15), contract errors, and Start/Shutdown.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tools of the test servers, in the order they list them.
var (
	httpTools  = []string{"block", "block_once", "echo", "fail", "ping", "roots", "rpcfail", "titled"}
	stdioTools = []string{"block", "block_once", "die", "die_on_release", "die_once", "echo", "env", "fail", "ping", "roots", "rpcfail", "titled"}
)

// Texts of the rules, as the user reads them.
const (
	textBoth     = "un serveur MCP ne peut avoir à la fois 'command' (stdio) et 'url' (http)"
	textNeither  = "un serveur MCP doit avoir soit 'command' (stdio) soit 'url' (http)"
	textEmpty    = "nom de serveur vide"
	textReserved = "le nom ne peut pas contenir '__' (réservé au namespacing des outils)"
	textMissing  = `exec: "mcpparity-missing-binary": executable file not found in $PATH`
	textUnknown  = "[erreur] outil MCP inconnu ou serveur non connecté: "
)

// Bodies of the contract, decoded for comparison.
type (
	serversBody struct {
		OK      bool           `json:"ok"`
		Servers []ServerStatus `json:"servers"`
	}
	okBody struct {
		OK bool `json:"ok"`
	}
)

// decodeAs decodes raw into a value of want's type and returns it.
func decodeAs(t *testing.T, raw string, want any) any {
	t.Helper()
	v := reflect.New(reflect.TypeOf(want))
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v.Interface()); err != nil {
		t.Fatalf("decode %T from %s: %v", want, raw, err)
	}
	return v.Elem().Interface()
}

func mustJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// TestContract_Errors checks the errors common to every route: 400 for
// malformed JSON, 405 for a wrong method, 413 over 1 MiB, and never a 500
// on bad client input.
func TestContract_Errors(t *testing.T) {
	f := newFixture(t)
	gets := []string{"/api/mcp", "/api/mcp/catalog"}
	posts := []string{"/api/mcp/save", "/api/mcp/delete", "/api/mcp/toggle", "/api/mcp/tool", "/api/mcp/test",
		FacadeToolsPath, FacadeCallPath, FacadePrewarmPath}
	errorAnswer := func(t *testing.T, raw string) ErrorBody {
		t.Helper()
		return decodeAs(t, raw, ErrorBody{}).(ErrorBody)
	}
	for _, path := range append(slices.Clone(gets), posts...) {
		allowed, wrong := "GET", []string{"POST", "DELETE"}
		if slices.Contains(posts, path) {
			allowed, wrong = "POST", []string{"GET", "PUT"}
		}
		for _, method := range wrong {
			t.Run("405 "+method+" "+path, func(t *testing.T) {
				req, _ := http.NewRequest(method, f.apiURL()+path, strings.NewReader("{}"))
				resp, err := f.api.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var body ErrorBody
				_ = json.NewDecoder(resp.Body).Decode(&body)
				want := ErrorBody{Error: "méthode non autorisée: " + method}
				if resp.StatusCode != 405 || resp.Header.Get("Allow") != allowed || body != want {
					t.Errorf("got %d Allow=%q %+v, want 405 Allow=%q %+v", resp.StatusCode, resp.Header.Get("Allow"), body, allowed, want)
				}
			})
		}
	}
	const mib = 1 << 20 // the contract's limit
	big := `{"name":"` + strings.Repeat("a", mib) + `"}`
	atLimit := `{"name":" ","pad":"` + strings.Repeat("a", mib-len(`{"name":" ","pad":""}`)) + `"}`
	if len(atLimit) != mib {
		t.Fatalf("atLimit is %d bytes", len(atLimit))
	}
	for _, path := range posts {
		t.Run("400 malformed "+path, func(t *testing.T) {
			code, raw := f.do("POST", path, `{"name":`)
			if b := errorAnswer(t, raw); code != 400 || b.OK || !strings.HasPrefix(b.Error, "JSON invalide: ") {
				t.Errorf("got %d %s, want 400 JSON invalide", code, raw)
			}
		})
		t.Run("413 over 1 MiB "+path, func(t *testing.T) {
			code, raw := f.do("POST", path, big)
			if b := errorAnswer(t, raw); code != 413 || b != (ErrorBody{Error: "corps de requête trop volumineux"}) {
				t.Errorf("got %d %s, want 413", code, raw)
			}
		})
	}
	t.Run("exactly 1 MiB is read", func(t *testing.T) {
		code, raw := f.do("POST", "/api/mcp/save", atLimit)
		if b := errorAnswer(t, raw); code != 400 || b.Error != textEmpty {
			t.Errorf("got %d %.100s, want 400 %q", code, raw, textEmpty)
		}
	})
	t.Run("no body reads as {}", func(t *testing.T) {
		for _, tt := range []struct {
			path string
			code int
			body string
		}{
			{FacadeToolsPath, 200, `{"ok":true,"tools":[],"prompt":""}`},
			{FacadePrewarmPath, 202, `{"ok":true}`},
			{FacadeCallPath, 200, `{"ok":true,"output":"[erreur] outil MCP inconnu ou serveur non connecté: ","label":""}`},
			{"/api/mcp/delete", 400, `{"ok":false,"error":"serveur MCP inconnu: "}`},
			{"/api/mcp/save", 400, `{"ok":false,"error":"nom de serveur vide"}`},
		} {
			code, raw := f.do("POST", tt.path, "")
			if code != tt.code || raw != tt.body+"\n" {
				t.Errorf("POST %s without a body: %d %s, want %d %s", tt.path, code, raw, tt.code, tt.body)
			}
		}
	})
	bad := []string{``, `{`, `}`, `[]`, `"x"`, `123`, `null`, `{}x`, `{"name":5}`, `{"name":null}`, `{"args":"x"}`,
		`{"on":"yes"}`, `{"enabled":"x"}`, `{"headers":[1]}`, `{"env":{"K":1}}`, "{\"name\":\"\xff\xfe\"}",
		`{"name":"mcp__x__y","args":{"a":[1,{"b":null}]},"contextWindow":-1}`, `{"contextWindow":"big"}`,
		`{"name":"` + strings.Repeat("é", 1000) + `","url":"::not a url"}`}
	for _, path := range posts {
		t.Run("never 500 "+path, func(t *testing.T) {
			for _, body := range bad {
				code, raw := f.do("POST", path, body)
				var answer map[string]any
				if code >= 500 || json.Unmarshal([]byte(raw), &answer) != nil || answer["ok"] == nil {
					t.Errorf("body %.40q: %d %.200s", body, code, raw)
				}
			}
		})
	}
}

func TestServe_StartShutdown(t *testing.T) {
	f := newFixture(t)
	mcpSrv := f.httpServer(false, testServerOptions{})
	s, err := Start("127.0.0.1:0", f.stateDir(), Options{HTTPTransport: f.transport})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = s.Shutdown(context.Background())
		}
	})
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	post := func(path string, body any) (int, string) {
		resp, err := client.Post(s.URL()+path, "application/json", strings.NewReader(mustJSON(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.String()
	}
	local := f.stdio(map[string]string{envServerChildren: f.children})
	for _, save := range []map[string]any{
		{"name": "local", "command": local.Command, "env": local.Env},
		{"name": "remote", "url": mcpSrv.URL},
	} {
		code, raw := post("/api/mcp/save", save)
		body := decodeAs(t, raw, serversBody{}).(serversBody)
		if code != 200 || !slices.ContainsFunc(body.Servers, func(s ServerStatus) bool { return s.Name == save["name"] && s.Connected }) {
			t.Fatalf("save %v: %d %s", save["name"], code, raw)
		}
	}
	pids, children := readPids(t, f.starts), readPids(t, f.children)
	if len(pids) != 1 || len(children) != 1 {
		t.Fatalf("started %v with children %v, want one each", pids, children)
	}
	if err := s.Shutdown(ctx(t)); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	stopped = true
	// Shutdown returned: the stdio server is ended and reaped, its group
	// killed, the HTTP session deleted.
	if !processGone(pids[0], false) {
		t.Errorf("stdio server %d still running after Shutdown", pids[0])
	}
	waitFor(t, "the grandchild to end", func() bool { return processGone(children[0], true) })
	if !slices.ContainsFunc(mcpSrv.requests(), func(r seenRequest) bool { return r.Method == http.MethodDelete }) {
		t.Error("the HTTP session was not closed (no DELETE)")
	}
	if resp, err := client.Get(s.URL() + "/api/mcp"); err == nil {
		resp.Body.Close()
		t.Error("the contract still answers after Shutdown")
	}
}

// TestServe_ShortBodyBounded: a client that sends less than its
// Content-Length does not hold the connection past the read deadline.
func TestServe_ShortBodyBounded(t *testing.T) {
	defer func(d time.Duration) { readTimeout = d }(readTimeout)
	readTimeout = 200 * time.Millisecond
	f := newFixture(t)
	s, err := Start("127.0.0.1:0", f.stateDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Shutdown(context.Background()) }()
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /api/mcp/delete HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\""); err != nil {
		t.Fatal(err)
	}
	// A hang guard, not a timing assertion: the server answers or closes
	// long before it.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server still holds a connection whose body never came")
	}
}

// Close ends the contract and every server process at once.
func TestServe_Close(t *testing.T) {
	f := newFixture(t)
	f.seed(map[string]MCPServerConfig{"local": f.stdio(nil)})
	s, err := Start("127.0.0.1:0", f.stateDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Pool.Status(ctx(t)); !st[0].Connected {
		t.Fatalf("status: %+v", st)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if pid := readPids(t, f.starts)[0]; !processGone(pid, false) {
		t.Errorf("S1.1: stdio server %d still running after Close", pid)
	}
	if _, err := net.Dial("tcp", s.Addr()); err == nil {
		t.Error("the contract still accepts connections after Close")
	}
}

package recorder_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

// leaks is the oracle of the redaction tests, independent of the
// recorder's own decoder: it parses the fixture and looks for secret in
// every string, and in what each string becomes once unescaped as JSON
// string content, parsed as JSON, or percent-decoded, a few layers deep.
func leaks(data []byte, secret string) bool {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return strings.Contains(string(data), secret)
	}
	found := false
	walkStrings(v, func(s string) {
		if !found && reveals(s, secret, 4) {
			found = true
		}
	})
	return found
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case map[string]any:
		for k, e := range x {
			f(k)
			walkStrings(e, f)
		}
	}
}

func reveals(s, secret string, depth int) bool {
	if strings.Contains(s, secret) {
		return true
	}
	if depth == 0 {
		return false
	}
	var nested any
	if json.Unmarshal([]byte(s), &nested) == nil {
		found := false
		walkStrings(nested, func(n string) {
			if !found && n != s && reveals(n, secret, depth-1) {
				found = true
			}
		})
		if found {
			return true
		}
	}
	var u string
	if json.Unmarshal([]byte(`"`+s+`"`), &u) == nil && u != s && reveals(u, secret, depth-1) {
		return true
	}
	if u, err := url.PathUnescape(s); err == nil && u != s && reveals(u, secret, depth-1) {
		return true
	}
	if u, err := url.QueryUnescape(s); err == nil && u != s && reveals(u, secret, depth-1) {
		return true
	}
	return false
}

// initExchange opens an HTTP recording (the manifest needs initialize).
func initExchange(headers map[string]string) fixtures.Exchange {
	return fixtures.Exchange{Seq: 1,
		Request: fixtures.Request{Method: "POST", Path: "/mcp", Headers: headers,
			Body: rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)},
		Response: fixtures.Response{Status: 200, ContentType: "application/json",
			Body: rpc(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}`)}}
}

// callExchange is a tools/call whose argument is the raw JSON string
// content arg (already escaped as the test wants).
func callExchange(seq int, path, arg string, headers map[string]string) fixtures.Exchange {
	return fixtures.Exchange{Seq: seq,
		Request: fixtures.Request{Method: "POST", Path: path, Headers: headers,
			Body: rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + arg + `"}}}`)},
		Response: fixtures.Response{Status: 200, ContentType: "application/json",
			Body: rpc(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + arg + `"}]}}`)}}
}

func stdioRecording(lines ...string) recorder.Recording {
	rec := recorder.Recording{Transport: fixtures.TransportStdio, Lines: []fixtures.Line{
		{Dir: "send", Message: rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)},
		{Dir: "recv", Message: rpc(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}`)},
	}}
	for _, l := range lines {
		rec.Lines = append(rec.Lines, fixtures.Line{Dir: "send", Message: json.RawMessage(l)})
	}
	return rec
}

// TestSecretEncodingsRedacted: a secret is redacted in whatever JSON
// escape or percent-encoding it takes, and a token in the query string is
// not written.
func TestSecretEncodingsRedacted(t *testing.T) {
	const (
		bearer = "CANARY/TOK+x9="
		dashed = "CANARY-7f3a-91c2"
	)
	cases := []struct {
		name   string
		secret string
		rec    recorder.Recording
		cfg    recorder.Config
	}{
		{"escaped slash after a bearer token", bearer, recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(map[string]string{"Authorization": "Bearer " + bearer}),
			callExchange(2, "/mcp", `CANARY\/TOK+x9=`, map[string]string{"Authorization": "Bearer " + bearer}),
		}}, recorder.Config{}},
		{"unicode escape of the first letter, configured header", dashed, recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(map[string]string{"X-Api-Key": dashed}),
			callExchange(2, "/mcp", `\u0043ANARY-7f3a-91c2`, map[string]string{"X-Api-Key": dashed}),
		}}, recorder.Config{Headers: []string{"X-Api-Key"}}},
		{"unicode escape of a dash, declared secret", dashed, recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(nil), callExchange(2, "/mcp", `CANARY\u002d7f3a\u002D91c2`, nil),
		}}, recorder.Config{Secrets: []string{dashed}}},
		{"stdio line", dashed, stdioRecording(
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"\u0043ANARY\u002d7f3a-91c2"}}}`,
			`"raw text: CANARY\\u002d7f3a-91c2"`,
		), recorder.Config{Secrets: []string{dashed}}},
		{"double-encoded JSON text", dashed, recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(nil), callExchange(2, "/mcp", `{\"token\":\"CANARY\\u002d7f3a-91c2\"}`, nil),
		}}, recorder.Config{Secrets: []string{dashed}}},
		{"percent-encoded in a body", bearer, recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(nil), callExchange(2, "/mcp", `https://x.example/?t=CANARY%2FTOK%2Bx9%3D`, nil),
		}}, recorder.Config{Secrets: []string{bearer}}},
		{"query string token", bearer, recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(nil), callExchange(2, "/mcp?api_key=CANARY%2FTOK%2Bx9%3D&v=2", `echo CANARY/TOK+x9=`, nil),
		}}, recorder.Config{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Name = "secrets"
			f, err := recorder.Build(c.rec, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			data, err := fixtures.Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			if leaks(data, c.secret) {
				t.Errorf("the secret reached the fixture:\n%s", data)
			}
			if !strings.Contains(string(data), fixtures.SecretPlaceholder) {
				t.Errorf("no placeholder written:\n%s", data)
			}
			if !json.Valid(data) {
				t.Errorf("invalid JSON:\n%s", data)
			}
			if c.name == "query string token" {
				if got := f.HTTP[1].Request.Path; got != "/mcp?api_key={secret}&v={secret}" {
					t.Errorf("path %q", got)
				}
			}
		})
	}
}

// TestSecretRefusedInAnyEncoding: where the recorder does not rewrite (the
// content type), a secret in any encoding makes it refuse the fixture.
func TestSecretRefusedInAnyEncoding(t *testing.T) {
	const secret = "CANARY/TOK+x9="
	for _, ct := range []string{"text/plain; t=CANARY/TOK+x9=", "text/plain; t=CANARY%2FTOK%2Bx9%3D", `text/plain; t="CANARY\/TOK+x9="`} {
		ex := callExchange(2, "/mcp", "x", nil)
		ex.Response = fixtures.Response{Status: 200, ContentType: ct, Text: "x"}
		rec := recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{initExchange(nil), ex}}
		_, err := recorder.Build(rec, recorder.Config{Name: "x", Secrets: []string{secret}})
		if err == nil || !strings.Contains(err.Error(), "survived") {
			t.Errorf("content type %q: built, or another error: %v", ct, err)
		}
	}
}

// encodeRune writes r as JSON string content, in the form selected by c.
func encodeRune(b *strings.Builder, r rune, c byte) {
	switch c % 5 {
	case 1, 2: // \uXXXX, lower or upper hex
		format := `\u%04x`
		if c%5 == 2 {
			format = `\u%04X`
		}
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(b, format, 0xD800+(r>>10))
			fmt.Fprintf(b, format, 0xDC00+(r&0x3FF))
			return
		}
		fmt.Fprintf(b, format, r)
		return
	case 3: // percent-encoding of its bytes
		for _, x := range []byte(string(r)) {
			fmt.Fprintf(b, "%%%02X", x)
		}
		return
	case 4:
		if r == '/' {
			b.WriteString(`\/`)
			return
		}
	}
	q, _ := json.Marshal(string(r)) // literal, escaped only where JSON must
	b.Write(q[1 : len(q)-1])
}

// encodeSecret encodes secret rune by rune with the choices in enc. Once
// one rune is percent-encoded, so is every '%' (a literal one would make
// the text mean something else).
func encodeSecret(secret string, enc []byte) string {
	choice := func(i int) byte {
		if len(enc) == 0 {
			return 0
		}
		return enc[i%len(enc)]
	}
	percent := false
	for i := range []rune(secret) {
		percent = percent || choice(i)%5 == 3
	}
	var b strings.Builder
	for i, r := range []rune(secret) {
		c := choice(i)
		if r == '%' && percent && (c%5 == 0 || c%5 == 4) {
			c = 3
		}
		encodeRune(&b, r, c)
	}
	return b.String()
}

// escapeContent escapes s once more as JSON string content.
func escapeContent(s string) string {
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1])
}

// FuzzSecretEncodings: a secret, each of its characters encoded in its own
// way (literal, \uXXXX in either case, \/, percent-encoding), placed in any
// part of a recording, never reaches the fixture: the recorder rewrites it,
// and the oracle finds no encoding of it in the result; where the recorder
// does not rewrite (the content type), it refuses to build. The seeds run
// with the normal tests.
func FuzzSecretEncodings(f *testing.F) {
	f.Add("/TOK+x9=", []byte{0}, uint8(0), uint8(0))
	f.Add("/TOK+x9=", []byte{4}, uint8(0), uint8(1))
	f.Add("-7f3a-91c2", []byte{1, 0}, uint8(1), uint8(2))
	f.Add("-7f3a-91c2", []byte{0, 2}, uint8(2), uint8(0))
	f.Add("-é€😀\"\\\t", []byte{1, 2, 3, 0}, uint8(3), uint8(1))
	f.Add("/a b+c", []byte{3}, uint8(4), uint8(2))
	f.Add("-x", []byte{2, 1}, uint8(5), uint8(0))
	f.Add("-x", []byte{0}, uint8(6), uint8(1))
	f.Add("%41\\u0041", []byte{0, 1}, uint8(7), uint8(2))
	f.Add("-k", []byte{4, 1}, uint8(8), uint8(0))
	f.Add("/TOK+x9=", []byte{1, 4, 3}, uint8(9), uint8(1))
	f.Fuzz(func(t *testing.T, suffix string, enc []byte, where, how uint8) {
		if !utf8.ValidString(suffix) || len(suffix) > 64 || len(enc) > 64 {
			t.Skip()
		}
		// The prefix keeps the secret out of the fixture's own words.
		secret := "CANARY" + suffix
		e := encodeSecret(secret, enc)
		cfg := recorder.Config{Name: "fuzz"}
		var headers map[string]string
		switch how % 3 {
		case 0:
			cfg.Secrets = []string{secret}
		case 1:
			headers = map[string]string{"Authorization": "Bearer " + secret}
		case 2:
			cfg.Headers = []string{"X-Api-Key"}
			headers = map[string]string{"X-Api-Key": secret}
		}
		if strings.ContainsAny(secret, "\r\n") && how%3 != 0 {
			t.Skip() // not a header value
		}
		rec := recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{initExchange(headers)}}
		add := func(ex fixtures.Exchange) { rec.Exchanges = append(rec.Exchanges, ex) }
		refuse := false
		switch where % 10 {
		case 0: // a request argument, echoed in the result
			add(callExchange(2, "/mcp", "say "+e+" now", headers))
		case 1: // an event of an SSE answer
			ex := callExchange(2, "/mcp", "x", headers)
			ex.Response = fixtures.Response{Status: 200, ContentType: "text/event-stream", Events: []fixtures.Event{
				{After: 2, Event: "message", Data: rpc(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + e + `"}]}}`)}}}
			add(ex)
		case 2: // JSON text inside a JSON string
			add(callExchange(2, "/mcp", escapeContent(`{"token":"`+e+`"}`), headers))
		case 3: // a stdio message
			rec = stdioRecording(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + e + `"}}}`)
		case 4: // a stdio line that is not JSON
			rec = stdioRecording(`"log: ` + escapeContent(e) + ` end"`)
		case 5: // a plain text answer
			ex := callExchange(2, "/mcp", "x", headers)
			ex.Response = fixtures.Response{Status: 404, ContentType: "text/plain; charset=utf-8", Text: "no " + e + "\n"}
			add(ex)
		case 6: // the query string
			add(callExchange(2, "/mcp?api_key="+url.QueryEscape(secret), "x", headers))
		case 7: // an object key
			ex := callExchange(2, "/mcp", "x", headers)
			ex.Request.Body = rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"` + e + `":1}}}`)
			add(ex)
		case 8: // an event comment
			ex := callExchange(2, "/mcp", "x", headers)
			ex.Response = fixtures.Response{Status: 200, ContentType: "text/event-stream", Events: []fixtures.Event{
				{After: 2, Comment: "c " + secret}, {After: 2, Data: rpc(`{"jsonrpc":"2.0","id":2,"result":{}}`)}}}
			add(ex)
		case 9: // the content type, which is not rewritten: refused
			ex := callExchange(2, "/mcp", "x", headers)
			ex.Response.ContentType = "application/json; t=" + e
			add(ex)
			refuse = true
		}
		if rec.Transport == fixtures.TransportStdio {
			cfg.Headers = nil
			cfg.Secrets = []string{secret}
		}
		for _, ex := range rec.Exchanges {
			if len(ex.Request.Body) > 0 && !json.Valid(ex.Request.Body) {
				t.Fatalf("bad test input %s", ex.Request.Body)
			}
		}
		f, err := recorder.Build(rec, cfg)
		if refuse {
			if err == nil || !strings.Contains(err.Error(), "survived") {
				t.Fatalf("secret %q as %q in the content type: not refused (%v)", secret, e, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("secret %q as %q: %v", secret, e, err)
		}
		data, err := fixtures.Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		if leaks(data, secret) {
			t.Fatalf("secret %q as %q reached the fixture:\n%s", secret, e, data)
		}
		if _, err := fixtures.Decode("fuzz.json", data); err != nil {
			t.Fatal(err)
		}
	})
}

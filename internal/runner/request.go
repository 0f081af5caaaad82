package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// requestClient carries every request of the harness to targets. Its
// connections are not kept: each request gets a fresh one, so nothing is
// left open when a scenario ends.
var requestClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// answer is what a target answered to one request.
type answer struct {
	status  int
	headers map[string]string
	body    any
	failure string // no answer: why
}

// body builds the request body of st: rawBody as is, or body with
// placeholders expanded, padded to padTo bytes.
func (r *stepRunner) body(st scenario.Step) ([]byte, error) {
	if st.RawBody != nil {
		return []byte(*st.RawBody), nil
	}
	body, err := r.srv.expandJSON(r.env, st.Body)
	if err != nil || st.PadTo == 0 {
		return body, err
	}
	return padJSON(body, st.PadTo)
}

// padJSON adds a string field "pad" to the object raw so that it is n bytes
// long.
func padJSON(raw []byte, n int) ([]byte, error) {
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("padTo needs an object body: %w", err)
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	const marker = "\x00mcpparity-pad\x00" // encoded as \u0000…, found once
	m["pad"] = marker
	base, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	enc, _ := json.Marshal(marker)
	at := bytes.Index(base, enc[1:len(enc)-1])
	if len(base)-(len(enc)-2) > n {
		return nil, fmt.Errorf("padTo %d: the body is already %d bytes", n, len(base)-(len(enc)-2))
	}
	pad := bytes.Repeat([]byte("x"), n-(len(base)-(len(enc)-2)))
	return slices.Concat(base[:at], pad, base[at+len(enc)-2:]), nil
}

// request sends one request to the target and observes its answer. A
// target that does not answer (refused, cut, too slow) or answers
// something that is not JSON is observed as such, not as an error.
func (r *stepRunner) request(ctx context.Context, method, path string, body []byte, headers []string) answer {
	timeout := r.cfg.RequestTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.inst.URL()+path, rd)
	if err != nil {
		return answer{failure: fmt.Sprintf("%s %s: %v", method, path, err)}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := requestClient.Do(req)
	if err != nil {
		return answer{failure: fmt.Sprintf("%s %s: no answer: %s", method, path, noAnswer(err, timeout))}
	}
	return readAnswer(resp, method, path, headers, timeout)
}

// readAnswer observes a response: its status, the named headers, its body
// as JSON (or as the text it is).
func readAnswer(resp *http.Response, method, path string, headers []string, timeout time.Duration) answer {
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode}
	for _, h := range headers {
		if v := resp.Header.Values(h); len(v) > 0 {
			if a.headers == nil {
				a.headers = map[string]string{}
			}
			a.headers[http.CanonicalHeaderKey(h)] = strings.Join(v, ", ")
		}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		a.failure = fmt.Sprintf("%s %s: answer cut: %s", method, path, noAnswer(err, timeout))
		return a
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		a.body = "non-JSON answer: " + string(raw)
		return a
	}
	a.body = v
	return a
}

// noAnswer names why a request got no answer in words that do not depend
// on timing.
func noAnswer(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "none within " + timeout.String()
	}
	return err.Error()
}

// shortBodyExtra is how many bytes a short body's Content-Length promises
// beyond what is sent.
const shortBodyExtra = 16

// shortRequest sends a request whose body ends before its Content-Length
// (the client then closes its side, as a client that died mid-body), and
// observes the answer that should still come (H1.6).
func (r *stepRunner) shortRequest(ctx context.Context, method, path string, body []byte) answer {
	timeout := r.cfg.RequestTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) answer {
		return answer{failure: fmt.Sprintf("%s %s: no answer to a short body: %s", method, path, noAnswer(err, timeout))}
	}
	u, err := url.Parse(r.inst.URL())
	if err != nil {
		return fail(err)
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		method, path, u.Host, len(body)+shortBodyExtra)
	if _, err := conn.Write(append([]byte(head), body...)); err != nil {
		return fail(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fail(err)
	}
	return readAnswer(resp, method, path, nil, timeout)
}

package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// message is a JSON-RPC message of the recording, parsed once at load. Its
// raw bytes are compact (one line) and the byte range of its id is known, so
// answering with another id is two appends, no re-encoding.
type message struct {
	raw     []byte
	method  string
	id      []byte // raw id; nil for notifications
	idStart int
	idEnd   int
	params  json.RawMessage
	result  bool // a response carrying "result"
	isError bool // a response carrying "error"
	// nullID: an error answer with "id": null, to a request the server
	// could not read (JSON-RPC 2.0, 5); it answers no request of its own.
	nullID bool
}

func (m *message) isRequest() bool  { return m.method != "" && m.id != nil }
func (m *message) isResponse() bool { return m.method == "" && m.id != nil }

// withID returns the message with its id replaced by id.
func (m *message) withID(id []byte) []byte {
	if m.id == nil || bytes.Equal(id, m.id) {
		return m.raw
	}
	out := make([]byte, 0, len(m.raw)-len(m.id)+len(id))
	out = append(out, m.raw[:m.idStart]...)
	out = append(out, id...)
	return append(out, m.raw[m.idEnd:]...)
}

// rawText returns the text of a recorded non-JSON payload (the format
// stores it as a JSON string), or ok false for a JSON message.
func rawText(raw []byte) (*message, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' {
		return nil, false
	}
	var s string
	if json.Unmarshal(t, &s) != nil {
		return nil, false
	}
	return &message{raw: []byte(s)}, true
}

// parsed memoizes parseMessage: a process replays the same recordings over
// and over (check, fuzz), and a message is not changed once parsed.
var parsed sync.Map // string(raw) → parseResult

type parseResult struct {
	m   *message
	err error
}

// parseMessage compacts and parses one recorded JSON-RPC message.
func parseMessage(raw []byte) (*message, error) {
	if v, ok := parsed.Load(string(raw)); ok {
		r := v.(parseResult)
		return r.m, r.err
	}
	m, err := parseNew(raw)
	parsed.Store(string(raw), parseResult{m, err})
	return m, err
}

// parseNew is parseMessage without the memo.
func parseNew(raw []byte) (*message, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON-RPC object (batches are not replayed)")
	}
	m := &message{raw: b}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		switch key {
		case "id":
			if string(v) == "null" {
				m.nullID = true
			} else {
				m.id, m.idStart, m.idEnd = v, end-len(v), end
			}
		case "method":
			if err := json.Unmarshal(v, &m.method); err != nil {
				return nil, fmt.Errorf("method: %w", err)
			}
		case "params":
			m.params = v
		case "result":
			m.result = true
		case "error":
			m.isError = true
		}
	}
	if m.method == "" && !(m.id != nil && (m.result || m.isError) || m.nullID && m.isError) {
		return nil, errors.New("neither a request, a notification nor a response")
	}
	return m, nil
}

// incoming is a message received from the client. Decoding it into this
// small struct is the only reflection on the hot path.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (in *incoming) hasID() bool      { return len(in.ID) > 0 && string(in.ID) != "null" }
func (in *incoming) isRequest() bool  { return in.Method != "" && in.hasID() }
func (in *incoming) isResponse() bool { return in.Method == "" && in.hasID() }

func decodeIncoming(body []byte) (*incoming, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		return nil, errors.New("JSON-RPC batches are not replayed")
	}
	var in incoming
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("body is not a JSON-RPC message: %v", err)
	}
	if in.Method == "" && !in.hasID() {
		return nil, errors.New("body is neither a request, a notification nor a response")
	}
	return &in, nil
}

// rpcError renders a JSON-RPC error response.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return b
}

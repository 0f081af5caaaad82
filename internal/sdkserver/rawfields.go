package sdkserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A go-sdk server writes a block from a struct: the fields of its type, in
// the struct's order, and nothing else; a server in another language
// writes what its own code holds, in its own order. A gen block's
// rawAnnotations is such an annotations object, its rawMembers such
// members (fields of another block type, say): the handler stands a marker
// annotation in for them, and the gen server's writers put the text in its
// place, the annotations object's, or the whole annotations member's.

const (
	rawMarkerPrefix      = "mcpparity-raw-"
	rawAnnotationsMarker = rawMarkerPrefix + "annotations:"
	rawMembersMarker     = rawMarkerPrefix + "members:"
	rawResultMarker      = rawMarkerPrefix + "result:"
)

var (
	rawMarkerRE = regexp.MustCompile(`("annotations":)\{"lastModified":"(` + rawAnnotationsMarker + `|` + rawMembersMarker + `)([A-Za-z0-9_-]*)"\}`)
	// A gen call's rawResult: the whole result in the marker's place,
	// after its rawResultBefore and a second "result" name when given.
	rawResultRE = regexp.MustCompile(`\{"content":\[\{"type":"text","text":"` + rawResultMarker + `([A-Za-z0-9_-]*)(?:\.([A-Za-z0-9_-]+))?"\}\]\}`)
)

// rawResult is the result that stands in for text, any JSON, written in
// its place as it is (a careless server's result: fields missing, null or
// of another type, blocks of unknown types).
func rawResult(text, before string) (*mcp.CallToolResult, error) {
	if !json.Valid([]byte(text)) {
		return nil, errors.New("rawResult: not JSON")
	}
	marker := rawResultMarker + base64.RawURLEncoding.EncodeToString([]byte(text))
	if before != "" {
		if !json.Valid([]byte(before)) {
			return nil, errors.New("rawResultBefore: not JSON")
		}
		marker += "." + base64.RawURLEncoding.EncodeToString([]byte(before))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: marker}}}, nil
}

// rawMarker is the marker annotation of text, a JSON object: written as
// the block's annotations, or (members) its members in their place.
func rawMarker(text string, members bool) (*mcp.Annotations, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) != nil || obj == nil || members && len(obj) == 0 {
		return nil, errors.New("not a JSON object (of one member or more, for rawMembers)")
	}
	marker := rawAnnotationsMarker
	if members {
		text = strings.TrimSpace(text)
		text, marker = text[1:len(text)-1], rawMembersMarker
	}
	return &mcp.Annotations{LastModified: marker + base64.RawURLEncoding.EncodeToString([]byte(text))}, nil
}

// expandRawFields replaces each marker in a written message by its text.
// A message without one is given back as it is, unscanned.
func expandRawFields(b []byte) []byte {
	if !bytes.Contains(b, []byte(rawMarkerPrefix)) {
		return b
	}
	b = rawResultRE.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := rawResultRE.FindSubmatch(m)
		raw, err := base64.RawURLEncoding.DecodeString(string(sub[1]))
		before, err2 := base64.RawURLEncoding.DecodeString(string(sub[2]))
		if err != nil || err2 != nil {
			return m
		}
		if len(before) > 0 {
			return append(append(before, `,"result":`...), raw...)
		}
		return raw
	})
	return rawMarkerRE.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := rawMarkerRE.FindSubmatch(m)
		raw, err := base64.RawURLEncoding.DecodeString(string(sub[3]))
		if err != nil {
			return m
		}
		if string(sub[2]) == rawMembersMarker {
			return raw
		}
		return append(append([]byte{}, sub[1]...), raw...)
	})
}

// rawFieldsWriter expands the markers of each write: the go-sdk writes
// one message (a stdio line, a JSON body, an SSE event) per call.
type rawFieldsWriter struct{ w io.Writer }

func (r rawFieldsWriter) Write(b []byte) (int, error) {
	if _, err := r.w.Write(expandRawFields(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rawFieldsResponse is an http.ResponseWriter that expands markers.
type rawFieldsResponse struct {
	http.ResponseWriter
}

func (r rawFieldsResponse) Write(b []byte) (int, error) {
	return rawFieldsWriter{r.ResponseWriter}.Write(b)
}

func (r rawFieldsResponse) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r rawFieldsResponse) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// expandingHandler serves h with markers expanded in its answers.
func expandingHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(rawFieldsResponse{w}, req)
	})
}

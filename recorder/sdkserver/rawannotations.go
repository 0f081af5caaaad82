package sdkserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A go-sdk server writes a block's annotations from a struct, in its field
// order (audience, lastModified, priority) and nothing else; a server in
// another language writes the keys its own code holds, in its own order.
// A gen block's rawAnnotations is such an object: the handler stands a
// marker in for it, and the gen server's writers put the text in its place.

const rawAnnotationsMarker = "mcpparity-raw-annotations:"

var rawAnnotationsRE = regexp.MustCompile(`\{"lastModified":"` + rawAnnotationsMarker + `([A-Za-z0-9_-]*)"\}`)

// rawAnnotations is the marker of text, a JSON object.
func rawAnnotations(text string) (*mcp.Annotations, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) != nil || obj == nil {
		return nil, errors.New("rawAnnotations: not a JSON object")
	}
	return &mcp.Annotations{LastModified: rawAnnotationsMarker + base64.RawURLEncoding.EncodeToString([]byte(text))}, nil
}

// expandRawAnnotations replaces each marker in a written message by its text.
func expandRawAnnotations(b []byte) []byte {
	return rawAnnotationsRE.ReplaceAllFunc(b, func(m []byte) []byte {
		raw, err := base64.RawURLEncoding.DecodeString(string(rawAnnotationsRE.FindSubmatch(m)[1]))
		if err != nil {
			return m
		}
		return raw
	})
}

// rawAnnotationsWriter expands the markers of each write: the go-sdk writes
// one message (a stdio line, a JSON body, an SSE event) per call.
type rawAnnotationsWriter struct{ w io.Writer }

func (r rawAnnotationsWriter) Write(b []byte) (int, error) {
	if _, err := r.w.Write(expandRawAnnotations(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rawAnnotationsResponse is an http.ResponseWriter that expands markers.
type rawAnnotationsResponse struct {
	http.ResponseWriter
}

func (r rawAnnotationsResponse) Write(b []byte) (int, error) {
	return rawAnnotationsWriter{r.ResponseWriter}.Write(b)
}

func (r rawAnnotationsResponse) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r rawAnnotationsResponse) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// expandingHandler serves h with markers expanded in its answers.
func expandingHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(rawAnnotationsResponse{w}, req)
	})
}

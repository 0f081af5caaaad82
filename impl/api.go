package impl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MaxBodyBytes bounds a request body of the contract server.
const MaxBodyBytes = 1 << 20

// Handler serves the target contract (docs/contract.md) over the pool.
func Handler(p *Pool) http.Handler {
	mux := http.NewServeMux()
	route := func(method, path string, h func(w http.ResponseWriter, r *http.Request)) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if r.Method != method {
				w.Header().Set("Allow", method)
				writeJSON(w, http.StatusMethodNotAllowed, errorBody("méthode non autorisée: "+r.Method))
				return
			}
			h(w, r)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody("route inconnue: "+r.Method+" "+r.URL.Path))
	})
	route(http.MethodGet, "/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeServers(w, r.Context(), p)
	})
	route(http.MethodGet, "/api/mcp/catalog", func(w http.ResponseWriter, r *http.Request) {
		entries, err := p.Catalog()
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, errorBody(err.Error()))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "catalog": entries})
	})
	route(http.MethodPost, "/api/mcp/save", func(w http.ResponseWriter, r *http.Request) {
		var req SaveRequest
		if decode(w, r, &req) {
			changed(w, r, p, p.Save(req))
		}
	})
	route(http.MethodPost, "/api/mcp/delete", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Name string `json:"name"`
		}
		if !decode(w, r, &req) {
			return
		}
		if err := p.Delete(req.Name); err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	})
	route(http.MethodPost, "/api/mcp/toggle", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Name string `json:"name"`
			On   bool   `json:"on"`
		}
		if decode(w, r, &req) {
			changed(w, r, p, p.Toggle(req.Name, req.On))
		}
	})
	route(http.MethodPost, "/api/mcp/tool", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Name string `json:"name"`
			Tool string `json:"tool"`
			On   bool   `json:"on"`
		}
		if decode(w, r, &req) {
			changed(w, r, p, p.SetTool(req.Name, req.Tool, req.On))
		}
	})
	route(http.MethodPost, "/api/mcp/test", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Name string `json:"name"`
		}
		if !decode(w, r, &req) {
			return
		}
		p.Test(req.Name)
		writeServers(w, r.Context(), p)
	})
	route(http.MethodPost, FacadeToolsPath, func(w http.ResponseWriter, r *http.Request) {
		var req struct{}
		if !decode(w, r, &req) {
			return
		}
		tools, prompt := p.Tools(r.Context())
		writeJSON(w, http.StatusOK, ToolsResponse{OK: true, Tools: tools, Prompt: prompt})
	})
	route(http.MethodPost, FacadeCallPath, func(w http.ResponseWriter, r *http.Request) {
		var req CallRequest
		if !decode(w, r, &req) {
			return
		}
		res := p.Call(r.Context(), req.Name, req.Args, req.ContextWindow)
		writeJSON(w, http.StatusOK, CallResponse{OK: true, Output: res.Output, Label: res.Label})
	})
	route(http.MethodPost, FacadePrewarmPath, func(w http.ResponseWriter, r *http.Request) {
		var req struct{}
		if !decode(w, r, &req) {
			return
		}
		p.Prewarm()
		writeJSON(w, http.StatusAccepted, map[string]any{"ok": true})
	})
	return mux
}

// Paths of the three internal façade routes.
const (
	FacadeToolsPath   = "/internal/facade/v1/mcp/tools"
	FacadeCallPath    = "/internal/facade/v1/mcp/call"
	FacadePrewarmPath = "/internal/facade/v1/mcp/prewarm"
)

// ToolsResponse is the answer of the tools route.
type ToolsResponse struct {
	OK     bool            `json:"ok"`
	Tools  []AnnouncedTool `json:"tools"`
	Prompt string          `json:"prompt"`
	Error  string          `json:"error,omitempty"`
}

// CallRequest is the body of the call route.
type CallRequest struct {
	Name          string         `json:"name"`
	Args          map[string]any `json:"args"`
	ContextWindow int            `json:"contextWindow,omitempty"`
}

// CallResponse is the answer of the call route.
type CallResponse struct {
	OK     bool   `json:"ok"`
	Output string `json:"output"`
	Label  string `json:"label"`
	Error  string `json:"error,omitempty"`
}

// changed answers a configuration change: its refusal, or the status.
func changed(w http.ResponseWriter, r *http.Request, p *Pool, err error) {
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	writeServers(w, r.Context(), p)
}

func writeServers(w http.ResponseWriter, ctx context.Context, p *Pool) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "servers": p.Status(ctx)})
}

// decode reads a JSON body; on failure it answers 413 or 400 and returns
// false. An empty body reads as {}.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody("corps de requête trop volumineux"))
		return false
	case err != nil:
		writeJSON(w, http.StatusBadRequest, errorBody("lecture du corps: "+err.Error()))
		return false
	case len(body) == 0:
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody("JSON invalide: "+jsonProblem(err)))
		return false
	}
	return true
}

// jsonProblem says what is wrong with a request body in words of JSON, not
// of Go types.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("syntaxe incorrecte à l'octet %d", syntax.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("le champ %q ne peut pas être %s", typ.Field, jsonKind(typ.Value))
	case errors.As(err, &typ):
		return "le corps doit être un objet, pas " + jsonKind(typ.Value)
	}
	return "corps illisible"
}

// jsonKind names a JSON value kind as json.UnmarshalTypeError reports it.
func jsonKind(v string) string {
	switch {
	case strings.HasPrefix(v, "number"): // "number", "number 1.5"
		return "un nombre"
	}
	switch v {
	case "string":
		return "une chaîne"
	case "bool":
		return "un booléen"
	case "array":
		return "un tableau"
	case "object":
		return "un objet"
	}
	return v
}

// ErrorBody is the answer of a refused request.
type ErrorBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

func errorBody(msg string) ErrorBody { return ErrorBody{Error: msg} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

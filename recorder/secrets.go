package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"

	"github.com/mcpparity/mcpparity/fixtures"
)

// SecretsFromEnv returns the values of the environment variables named:
// each is a secret. A variable unset or empty is an error naming it.
func SecretsFromEnv(names []string) ([]string, error) {
	var out []string
	for _, name := range names {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			return nil, fmt.Errorf("secret variable %s is not set (or empty): its value cannot be looked for", name)
		}
		out = append(out, v)
	}
	return out, nil
}

// CompileSecretPatterns compiles regular expressions whose every match in
// the traffic is a secret; an invalid one is an error naming it.
func CompileSecretPatterns(exprs []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, fmt.Errorf("secret pattern %q: %v", e, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// matchedSecrets returns every non-empty match of the patterns in the
// texts of the traffic: request paths (decoded), header values, and the
// string literals (keys and values, decoded) of bodies, events and lines.
func matchedSecrets(rec Recording, patterns []*regexp.Regexp) []string {
	if len(patterns) == 0 {
		return nil
	}
	var out []string
	look := func(s string) {
		for _, re := range patterns {
			for _, m := range re.FindAllString(s, -1) {
				if m != "" {
					out = append(out, m)
				}
			}
		}
	}
	exchange := func(req fixtures.Request, resp fixtures.Response) {
		look(req.Path)
		if p, err := url.PathUnescape(req.Path); err == nil {
			look(p)
		}
		for _, h := range []map[string]string{req.Headers, resp.Headers} {
			for _, v := range h {
				look(v)
			}
		}
		look(resp.Text)
		for _, data := range append(resp.Data(), req.Body) {
			jsonStrings(data, look)
		}
	}
	for _, ex := range rec.Exchanges {
		exchange(ex.Request, ex.Response)
	}
	for _, p := range rec.Probes {
		exchange(p.Request, p.Response)
		for _, l := range p.Lines {
			jsonStrings(l.Message, look)
		}
	}
	for _, l := range rec.Lines {
		jsonStrings(l.Message, look)
	}
	return out
}

// jsonStrings calls f with every string literal of the JSON text data,
// decoded.
func jsonStrings(data []byte, f func(string)) {
	eachString(data, func(i, j int) {
		var s string
		if json.Unmarshal(data[i-1:j+1], &s) == nil {
			f(s)
		}
	})
}

// SecretsReplaced counts the values of f replaced by the secret
// placeholder: what a recording may say of its secrets, never which.
func SecretsReplaced(f *fixtures.Fixture) int {
	data, err := fixtures.Encode(f)
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte(fixtures.SecretPlaceholder))
}

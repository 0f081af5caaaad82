package recorder_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

// TestSecretPatternsRedacted: every match of a pattern is a secret, found
// in decoded text (an escaped letter, a header, a stdio line) and written
// nowhere in any encoding; the count says how many values were replaced.
func TestSecretPatternsRedacted(t *testing.T) {
	const tokA, tokB = "ghp_AbCdEf0123456789", "ghp_ZyXwVu9876543210"
	pat := []*regexp.Regexp{regexp.MustCompile(`ghp_[A-Za-z0-9]{16}`)}
	cases := []struct {
		name string
		rec  recorder.Recording
		want int // placeholders written
	}{
		{"an escaped letter in a body, twice, and a header", recorder.Recording{Transport: "http", Exchanges: []fixtures.Exchange{
			initExchange(map[string]string{"Authorization": "token " + tokB}),
			callExchange(2, "/mcp", `\u0067hp_AbCdEf0123456789 and ghp_AbCdEf0123456789`, nil),
		}}, 5}, // the two in the echo's request and answer, and the Authorization header
		{"stdio lines", stdioRecording(
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"use ghp_ZyXwVu9876543210"}}}`,
		), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := recorder.Build(c.rec, recorder.Config{Name: "patterns", SecretPatterns: pat})
			if err != nil {
				t.Fatal(err)
			}
			data, err := fixtures.Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, tok := range []string{tokA, tokB} {
				if leaks(data, tok) {
					t.Errorf("%s reached the fixture:\n%s", tok, data)
				}
			}
			if !json.Valid(data) {
				t.Errorf("invalid JSON:\n%s", data)
			}
			if got := recorder.SecretsReplaced(f); got != c.want {
				t.Errorf("SecretsReplaced = %d, want %d:\n%s", got, c.want, data)
			}
		})
	}
}

// TestSecretsWithoutPatterns: without a pattern nor a secret, a
// token-looking value is kept and nothing is counted.
func TestSecretsWithoutPatterns(t *testing.T) {
	rec := stdioRecording(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ghp_ZyXwVu9876543210"}}}`)
	f, err := recorder.Build(rec, recorder.Config{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := fixtures.Encode(f)
	if !strings.Contains(string(data), "ghp_ZyXwVu9876543210") || recorder.SecretsReplaced(f) != 0 {
		t.Errorf("SecretsReplaced = %d; fixture:\n%s", recorder.SecretsReplaced(f), data)
	}
}

func TestSecretsFromEnv(t *testing.T) {
	t.Setenv("MCPPARITY_TEST_TOKEN", "s3cr3t-value")
	t.Setenv("MCPPARITY_TEST_EMPTY", "")
	got, err := recorder.SecretsFromEnv([]string{"MCPPARITY_TEST_TOKEN"})
	if err != nil || len(got) != 1 || got[0] != "s3cr3t-value" {
		t.Fatalf("SecretsFromEnv = %q, %v", got, err)
	}
	for _, name := range []string{"MCPPARITY_TEST_EMPTY", "MCPPARITY_TEST_UNSET_XYZ"} {
		_, err := recorder.SecretsFromEnv([]string{name})
		if err == nil || !strings.Contains(err.Error(), "secret variable "+name+" is not set") {
			t.Errorf("%s: error %v, want one naming it", name, err)
		}
	}
	if _, err := recorder.CompileSecretPatterns([]string{"ghp_[", "ok"}); err == nil || !strings.Contains(err.Error(), `secret pattern "ghp_["`) {
		t.Errorf("a bad pattern: error %v, want one naming it", err)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRecordSuiteSecrets: a suite's call script names a variable whose
// value is a secret and a pattern whose matches are; record writes neither
// (nor the value of --secret-pattern's match) and says how many values it
// replaced; record-suite --drift, with the same settings, finds no drift; an
// unset variable or a bad pattern is refused before anything runs.
func TestRecordSuiteSecrets(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPPARITY_TEST_SECRET", "zebra-canary-42")
	dir := filepath.Join(t.TempDir(), "parity")
	upstream := "'" + exe + "' sdk-server --stdio"
	if code, out, errs := run("record-suite", "--suite", dir, "--name", "sdk", "--upstream-cmd", upstream); code != 0 {
		t.Fatalf("record: exit %d\n%s%s", code, out, errs)
	}
	script := filepath.Join(dir, "scenarios", "calls-sdk.json")
	data, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"calls": []`, `"secretEnv": ["MCPPARITY_TEST_SECRET"], "secretPatterns": ["ghp_[A-Za-z0-9]{16}"],
  "calls": [{"tool": "echo", "args": {"message": "zebra-canary-42 ghp_AbCdEf0123456789 sk-live-0000"}}]`, 1)
	if err := os.WriteFile(script, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("record-suite", "--suite", dir, "--secret-pattern", `sk-live-\d+`)
	m := regexp.MustCompile(`secrets: (\d+) value\(s\) replaced`).FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] == "0" {
		t.Fatalf("record: exit %d, want a count of the values replaced\n%s%s", code, out, errs)
	}
	fixture, err := os.ReadFile(filepath.Join(dir, "fixtures", "sdk", "stdio.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"zebra-canary-42", "ghp_AbCdEf0123456789", "sk-live-0000"} {
		if strings.Contains(string(fixture), secret) || strings.Contains(out+errs, secret) {
			t.Errorf("%s was written", secret)
		}
	}
	if code, out, errs := run("record-suite", "--drift", "--suite", dir, "--secret-pattern", `sk-live-\d+`); code != 0 {
		t.Errorf("record-suite --drift with the same secrets: exit %d\n%s%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record-suite", "--suite", dir, "--secret-env", "MCPPARITY_TEST_UNSET_XYZ"}, "secret variable MCPPARITY_TEST_UNSET_XYZ is not set"},
		{[]string{"record-suite", "--suite", dir, "--secret-pattern", "sk-[", "--drift"}, `secret pattern "sk-["`},
	} {
		if code, out, errs := run(tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, want 2 with %q\n%s%s", tc.args, code, tc.want, out, errs)
		}
	}
	os.Unsetenv("MCPPARITY_TEST_SECRET")
	if code, _, errs := run("record-suite", "--suite", dir); code != 1 || !strings.Contains(errs, "secret variable MCPPARITY_TEST_SECRET is not set") {
		t.Errorf("the script's variable unset: exit %d, want 1 naming it\n%s", code, errs)
	}
}
